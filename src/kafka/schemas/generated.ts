/**
 * GENERATED FILE - do not edit by hand.
 * Written by scripts/kafka-schemas/generate.ts from Kafka's JSON message definitions (apache/kafka@1eb7644).
 * Regenerate (from an apache/kafka checkout) with:
 *   npx tsx scripts/kafka-schemas/generate.ts <kafka>/clients/src/main/resources/common/message
 * Versions and APIs Kafka added since those definitions come from scripts/kafka-schemas/later-versions.ts.
 *
 * The schemas are in our own format (./format.ts); the interfaces describe decoded bodies, in
 * which every field is present (fields outside the decoded version hold their defaults).
 */
/* eslint-disable */
import { OPEN_END, type MessageSchema } from './format.js';

/** Upper end of open version ranges ("N+"). */
const N = OPEN_END;

/** Kafka api keys of the APIs described here. */
export const ApiKeys = {
  Produce: 0,
  Fetch: 1,
  ListOffsets: 2,
  Metadata: 3,
  OffsetCommit: 8,
  OffsetFetch: 9,
  FindCoordinator: 10,
  JoinGroup: 11,
  Heartbeat: 12,
  LeaveGroup: 13,
  SyncGroup: 14,
  DescribeGroups: 15,
  ListGroups: 16,
  SaslHandshake: 17,
  ApiVersions: 18,
  CreateTopics: 19,
  DeleteTopics: 20,
  DeleteRecords: 21,
  InitProducerId: 22,
  OffsetForLeaderEpoch: 23,
  AddPartitionsToTxn: 24,
  AddOffsetsToTxn: 25,
  EndTxn: 26,
  WriteTxnMarkers: 27,
  TxnOffsetCommit: 28,
  DescribeAcls: 29,
  CreateAcls: 30,
  DeleteAcls: 31,
  DescribeConfigs: 32,
  AlterConfigs: 33,
  AlterReplicaLogDirs: 34,
  DescribeLogDirs: 35,
  SaslAuthenticate: 36,
  CreatePartitions: 37,
  CreateDelegationToken: 38,
  RenewDelegationToken: 39,
  ExpireDelegationToken: 40,
  DescribeDelegationToken: 41,
  DeleteGroups: 42,
  ElectLeaders: 43,
  IncrementalAlterConfigs: 44,
  AlterPartitionReassignments: 45,
  ListPartitionReassignments: 46,
  OffsetDelete: 47,
  DescribeClientQuotas: 48,
  AlterClientQuotas: 49,
  DescribeUserScramCredentials: 50,
  AlterUserScramCredentials: 51,
  DescribeQuorum: 55,
  UpdateFeatures: 57,
  DescribeCluster: 60,
  DescribeProducers: 61,
  UnregisterBroker: 64,
  DescribeTransactions: 65,
  ListTransactions: 66,
  ConsumerGroupHeartbeat: 68,
  ConsumerGroupDescribe: 69,
  GetTelemetrySubscriptions: 71,
  PushTelemetry: 72,
  ListClientMetricsResources: 74,
  DescribeTopicPartitions: 75,
  ShareGroupHeartbeat: 76,
  ShareGroupDescribe: 77,
  ShareFetch: 78,
  ShareAcknowledge: 79,
  AddRaftVoter: 80,
  RemoveRaftVoter: 81,
  DescribeShareGroupOffsets: 90,
  AlterShareGroupOffsets: 91,
  DeleteShareGroupOffsets: 92,
} as const;

export const messageSchemas: readonly MessageSchema[] = [
  { name: 'ProduceRequest', apiKey: 0, kind: 'request', validVersions: [0, 13], flexibleFrom: 9, fields: [
    { name: 'transactionalId', type: 'string', versions: [3, N], nullable: [3, N], default: null },
    { name: 'acks', type: 'int16', versions: [0, N] },
    { name: 'timeoutMs', type: 'int32', versions: [0, N] },
    { name: 'topicData', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'name', type: 'string', versions: [0, 12] },
      { name: 'topicId', type: 'uuid', versions: [13, N] },
      { name: 'partitionData', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'index', type: 'int32', versions: [0, N] },
        { name: 'records', type: 'records', versions: [0, N], nullable: [0, N] },
      ] },
    ] },
  ] },
  { name: 'ProduceResponse', apiKey: 0, kind: 'response', validVersions: [0, 13], flexibleFrom: 9, fields: [
    { name: 'responses', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'name', type: 'string', versions: [0, 12] },
      { name: 'topicId', type: 'uuid', versions: [13, N] },
      { name: 'partitionResponses', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'index', type: 'int32', versions: [0, N] },
        { name: 'errorCode', type: 'int16', versions: [0, N] },
        { name: 'baseOffset', type: 'int64', versions: [0, N] },
        { name: 'logAppendTimeMs', type: 'int64', versions: [2, N], default: -1 },
        { name: 'logStartOffset', type: 'int64', versions: [5, N], default: -1 },
        { name: 'recordErrors', type: 'struct', array: true, versions: [8, N], fields: [
          { name: 'batchIndex', type: 'int32', versions: [8, N] },
          { name: 'batchIndexErrorMessage', type: 'string', versions: [8, N], nullable: [8, N], default: null },
        ] },
        { name: 'errorMessage', type: 'string', versions: [8, N], nullable: [8, N], default: null },
        { name: 'currentLeader', type: 'struct', versions: [10, N], tagged: [10, N], tag: 0, fields: [
          { name: 'leaderId', type: 'int32', versions: [10, N], default: -1 },
          { name: 'leaderEpoch', type: 'int32', versions: [10, N], default: -1 },
        ] },
      ] },
    ] },
    { name: 'throttleTimeMs', type: 'int32', versions: [1, N], default: 0 },
    { name: 'nodeEndpoints', type: 'struct', array: true, versions: [10, N], tagged: [10, N], tag: 0, fields: [
      { name: 'nodeId', type: 'int32', versions: [10, N] },
      { name: 'host', type: 'string', versions: [10, N] },
      { name: 'port', type: 'int32', versions: [10, N] },
      { name: 'rack', type: 'string', versions: [10, N], nullable: [10, N], default: null },
    ] },
  ] },
  { name: 'FetchRequest', apiKey: 1, kind: 'request', validVersions: [0, 18], flexibleFrom: 12, fields: [
    { name: 'clusterId', type: 'string', versions: [12, N], nullable: [12, N], tagged: [12, N], tag: 0, default: null },
    { name: 'replicaId', type: 'int32', versions: [0, 14], default: -1 },
    { name: 'replicaState', type: 'struct', versions: [15, N], tagged: [15, N], tag: 1, fields: [
      { name: 'replicaId', type: 'int32', versions: [15, N], default: -1 },
      { name: 'replicaEpoch', type: 'int64', versions: [15, N], default: -1 },
    ] },
    { name: 'maxWaitMs', type: 'int32', versions: [0, N] },
    { name: 'minBytes', type: 'int32', versions: [0, N] },
    { name: 'maxBytes', type: 'int32', versions: [3, N], default: 2147483647 },
    { name: 'isolationLevel', type: 'int8', versions: [4, N], default: 0 },
    { name: 'sessionId', type: 'int32', versions: [7, N], default: 0 },
    { name: 'sessionEpoch', type: 'int32', versions: [7, N], default: -1 },
    { name: 'topics', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'topic', type: 'string', versions: [0, 12] },
      { name: 'topicId', type: 'uuid', versions: [13, N] },
      { name: 'partitions', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'partition', type: 'int32', versions: [0, N] },
        { name: 'currentLeaderEpoch', type: 'int32', versions: [9, N], default: -1 },
        { name: 'fetchOffset', type: 'int64', versions: [0, N] },
        { name: 'lastFetchedEpoch', type: 'int32', versions: [12, N], default: -1 },
        { name: 'logStartOffset', type: 'int64', versions: [5, N], default: -1 },
        { name: 'partitionMaxBytes', type: 'int32', versions: [0, N] },
        { name: 'replicaDirectoryId', type: 'uuid', versions: [17, N], tagged: [17, N], tag: 0 },
      ] },
    ] },
    { name: 'forgottenTopicsData', type: 'struct', array: true, versions: [7, N], fields: [
      { name: 'topic', type: 'string', versions: [7, 12] },
      { name: 'topicId', type: 'uuid', versions: [13, N] },
      { name: 'partitions', type: 'int32', array: true, versions: [7, N] },
    ] },
    { name: 'rackId', type: 'string', versions: [11, N], default: '' },
  ] },
  { name: 'FetchResponse', apiKey: 1, kind: 'response', validVersions: [0, 18], flexibleFrom: 12, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [1, N] },
    { name: 'errorCode', type: 'int16', versions: [7, N] },
    { name: 'sessionId', type: 'int32', versions: [7, N], default: 0 },
    { name: 'responses', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'topic', type: 'string', versions: [0, 12] },
      { name: 'topicId', type: 'uuid', versions: [13, N] },
      { name: 'partitions', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'partitionIndex', type: 'int32', versions: [0, N] },
        { name: 'errorCode', type: 'int16', versions: [0, N] },
        { name: 'highWatermark', type: 'int64', versions: [0, N] },
        { name: 'lastStableOffset', type: 'int64', versions: [4, N], default: -1 },
        { name: 'logStartOffset', type: 'int64', versions: [5, N], default: -1 },
        { name: 'divergingEpoch', type: 'struct', versions: [12, N], tagged: [12, N], tag: 0, fields: [
          { name: 'epoch', type: 'int32', versions: [12, N], default: -1 },
          { name: 'endOffset', type: 'int64', versions: [12, N], default: -1 },
        ] },
        { name: 'currentLeader', type: 'struct', versions: [12, N], tagged: [12, N], tag: 1, fields: [
          { name: 'leaderId', type: 'int32', versions: [12, N], default: -1 },
          { name: 'leaderEpoch', type: 'int32', versions: [12, N], default: -1 },
        ] },
        { name: 'snapshotId', type: 'struct', versions: [12, N], tagged: [12, N], tag: 2, fields: [
          { name: 'endOffset', type: 'int64', versions: [0, N], default: -1 },
          { name: 'epoch', type: 'int32', versions: [0, N], default: -1 },
        ] },
        { name: 'abortedTransactions', type: 'struct', array: true, versions: [4, N], nullable: [4, N], fields: [
          { name: 'producerId', type: 'int64', versions: [4, N] },
          { name: 'firstOffset', type: 'int64', versions: [4, N] },
        ] },
        { name: 'preferredReadReplica', type: 'int32', versions: [11, N], default: -1 },
        { name: 'records', type: 'records', versions: [0, N], nullable: [0, N] },
      ] },
    ] },
    { name: 'nodeEndpoints', type: 'struct', array: true, versions: [16, N], tagged: [16, N], tag: 0, fields: [
      { name: 'nodeId', type: 'int32', versions: [16, N] },
      { name: 'host', type: 'string', versions: [16, N] },
      { name: 'port', type: 'int32', versions: [16, N] },
      { name: 'rack', type: 'string', versions: [16, N], nullable: [16, N], default: null },
    ] },
  ] },
  { name: 'ListOffsetsRequest', apiKey: 2, kind: 'request', validVersions: [0, 11], flexibleFrom: 6, fields: [
    { name: 'replicaId', type: 'int32', versions: [0, N] },
    { name: 'isolationLevel', type: 'int8', versions: [2, N] },
    { name: 'topics', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'name', type: 'string', versions: [0, N] },
      { name: 'partitions', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'partitionIndex', type: 'int32', versions: [0, N] },
        { name: 'currentLeaderEpoch', type: 'int32', versions: [4, N], default: -1 },
        { name: 'timestamp', type: 'int64', versions: [0, N] },
        { name: 'maxNumOffsets', type: 'int32', versions: [0, 0], default: 1 },
      ] },
    ] },
    { name: 'timeoutMs', type: 'int32', versions: [10, N] },
  ] },
  { name: 'ListOffsetsResponse', apiKey: 2, kind: 'response', validVersions: [0, 11], flexibleFrom: 6, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [2, N] },
    { name: 'topics', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'name', type: 'string', versions: [0, N] },
      { name: 'partitions', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'partitionIndex', type: 'int32', versions: [0, N] },
        { name: 'errorCode', type: 'int16', versions: [0, N] },
        { name: 'oldStyleOffsets', type: 'int64', array: true, versions: [0, 0] },
        { name: 'timestamp', type: 'int64', versions: [1, N], default: -1 },
        { name: 'offset', type: 'int64', versions: [1, N], default: -1 },
        { name: 'leaderEpoch', type: 'int32', versions: [4, N], default: -1 },
      ] },
    ] },
  ] },
  { name: 'MetadataRequest', apiKey: 3, kind: 'request', validVersions: [0, 13], flexibleFrom: 9, fields: [
    { name: 'topics', type: 'struct', array: true, versions: [0, N], nullable: [1, N], fields: [
      { name: 'topicId', type: 'uuid', versions: [10, N] },
      { name: 'name', type: 'string', versions: [0, N], nullable: [10, N] },
    ] },
    { name: 'allowAutoTopicCreation', type: 'bool', versions: [4, N], default: true },
    { name: 'includeClusterAuthorizedOperations', type: 'bool', versions: [8, 10] },
    { name: 'includeTopicAuthorizedOperations', type: 'bool', versions: [8, N] },
  ] },
  { name: 'MetadataResponse', apiKey: 3, kind: 'response', validVersions: [0, 13], flexibleFrom: 9, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [3, N] },
    { name: 'brokers', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'nodeId', type: 'int32', versions: [0, N] },
      { name: 'host', type: 'string', versions: [0, N] },
      { name: 'port', type: 'int32', versions: [0, N] },
      { name: 'rack', type: 'string', versions: [1, N], nullable: [1, N], default: null },
    ] },
    { name: 'clusterId', type: 'string', versions: [2, N], nullable: [2, N], default: null },
    { name: 'controllerId', type: 'int32', versions: [1, N], default: -1 },
    { name: 'topics', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'errorCode', type: 'int16', versions: [0, N] },
      { name: 'name', type: 'string', versions: [0, N], nullable: [12, N] },
      { name: 'topicId', type: 'uuid', versions: [10, N] },
      { name: 'isInternal', type: 'bool', versions: [1, N], default: false },
      { name: 'partitions', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'errorCode', type: 'int16', versions: [0, N] },
        { name: 'partitionIndex', type: 'int32', versions: [0, N] },
        { name: 'leaderId', type: 'int32', versions: [0, N] },
        { name: 'leaderEpoch', type: 'int32', versions: [7, N], default: -1 },
        { name: 'replicaNodes', type: 'int32', array: true, versions: [0, N] },
        { name: 'isrNodes', type: 'int32', array: true, versions: [0, N] },
        { name: 'offlineReplicas', type: 'int32', array: true, versions: [5, N] },
      ] },
      { name: 'topicAuthorizedOperations', type: 'int32', versions: [8, N], default: -2147483648 },
    ] },
    { name: 'clusterAuthorizedOperations', type: 'int32', versions: [8, 10], default: -2147483648 },
    { name: 'errorCode', type: 'int16', versions: [13, N] },
  ] },
  { name: 'OffsetCommitRequest', apiKey: 8, kind: 'request', validVersions: [0, 10], flexibleFrom: 8, fields: [
    { name: 'groupId', type: 'string', versions: [0, N] },
    { name: 'generationIdOrMemberEpoch', type: 'int32', versions: [1, N], default: -1 },
    { name: 'memberId', type: 'string', versions: [1, N] },
    { name: 'groupInstanceId', type: 'string', versions: [7, N], nullable: [7, N], default: null },
    { name: 'retentionTimeMs', type: 'int64', versions: [2, 4], default: -1 },
    { name: 'topics', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'name', type: 'string', versions: [0, 9] },
      { name: 'topicId', type: 'uuid', versions: [10, N] },
      { name: 'partitions', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'partitionIndex', type: 'int32', versions: [0, N] },
        { name: 'committedOffset', type: 'int64', versions: [0, N] },
        { name: 'committedLeaderEpoch', type: 'int32', versions: [6, N], default: -1 },
        { name: 'commitTimestamp', type: 'int64', versions: [1, 1], default: -1 },
        { name: 'committedMetadata', type: 'string', versions: [0, N], nullable: [0, N] },
      ] },
    ] },
  ] },
  { name: 'OffsetCommitResponse', apiKey: 8, kind: 'response', validVersions: [0, 10], flexibleFrom: 8, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [3, N] },
    { name: 'topics', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'name', type: 'string', versions: [0, 9] },
      { name: 'topicId', type: 'uuid', versions: [10, N] },
      { name: 'partitions', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'partitionIndex', type: 'int32', versions: [0, N] },
        { name: 'errorCode', type: 'int16', versions: [0, N] },
      ] },
    ] },
  ] },
  { name: 'OffsetFetchRequest', apiKey: 9, kind: 'request', validVersions: [0, 10], flexibleFrom: 6, fields: [
    { name: 'groupId', type: 'string', versions: [0, 7] },
    { name: 'topics', type: 'struct', array: true, versions: [0, 7], nullable: [2, 7], fields: [
      { name: 'name', type: 'string', versions: [0, 7] },
      { name: 'partitionIndexes', type: 'int32', array: true, versions: [0, 7] },
    ] },
    { name: 'groups', type: 'struct', array: true, versions: [8, N], fields: [
      { name: 'groupId', type: 'string', versions: [8, N] },
      { name: 'memberId', type: 'string', versions: [9, N], nullable: [9, N], default: null },
      { name: 'memberEpoch', type: 'int32', versions: [9, N], default: -1 },
      { name: 'topics', type: 'struct', array: true, versions: [8, N], nullable: [8, N], fields: [
        { name: 'name', type: 'string', versions: [8, 9] },
        { name: 'topicId', type: 'uuid', versions: [10, N] },
        { name: 'partitionIndexes', type: 'int32', array: true, versions: [8, N] },
      ] },
    ] },
    { name: 'requireStable', type: 'bool', versions: [7, N], default: false },
  ] },
  { name: 'OffsetFetchResponse', apiKey: 9, kind: 'response', validVersions: [0, 10], flexibleFrom: 6, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [3, N] },
    { name: 'topics', type: 'struct', array: true, versions: [0, 7], fields: [
      { name: 'name', type: 'string', versions: [0, 7] },
      { name: 'partitions', type: 'struct', array: true, versions: [0, 7], fields: [
        { name: 'partitionIndex', type: 'int32', versions: [0, 7] },
        { name: 'committedOffset', type: 'int64', versions: [0, 7] },
        { name: 'committedLeaderEpoch', type: 'int32', versions: [5, 7], default: -1 },
        { name: 'metadata', type: 'string', versions: [0, 7], nullable: [0, 7] },
        { name: 'errorCode', type: 'int16', versions: [0, 7] },
      ] },
    ] },
    { name: 'errorCode', type: 'int16', versions: [2, 7], default: 0 },
    { name: 'groups', type: 'struct', array: true, versions: [8, N], fields: [
      { name: 'groupId', type: 'string', versions: [8, N] },
      { name: 'topics', type: 'struct', array: true, versions: [8, N], fields: [
        { name: 'name', type: 'string', versions: [8, 9] },
        { name: 'topicId', type: 'uuid', versions: [10, N] },
        { name: 'partitions', type: 'struct', array: true, versions: [8, N], fields: [
          { name: 'partitionIndex', type: 'int32', versions: [8, N] },
          { name: 'committedOffset', type: 'int64', versions: [8, N] },
          { name: 'committedLeaderEpoch', type: 'int32', versions: [8, N], default: -1 },
          { name: 'metadata', type: 'string', versions: [8, N], nullable: [8, N] },
          { name: 'errorCode', type: 'int16', versions: [8, N] },
        ] },
      ] },
      { name: 'errorCode', type: 'int16', versions: [8, N], default: 0 },
    ] },
  ] },
  { name: 'FindCoordinatorRequest', apiKey: 10, kind: 'request', validVersions: [0, 6], flexibleFrom: 3, fields: [
    { name: 'key', type: 'string', versions: [0, 3] },
    { name: 'keyType', type: 'int8', versions: [1, N], default: 0 },
    { name: 'coordinatorKeys', type: 'string', array: true, versions: [4, N] },
  ] },
  { name: 'FindCoordinatorResponse', apiKey: 10, kind: 'response', validVersions: [0, 6], flexibleFrom: 3, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [1, N] },
    { name: 'errorCode', type: 'int16', versions: [0, 3] },
    { name: 'errorMessage', type: 'string', versions: [1, 3], nullable: [1, 3] },
    { name: 'nodeId', type: 'int32', versions: [0, 3] },
    { name: 'host', type: 'string', versions: [0, 3] },
    { name: 'port', type: 'int32', versions: [0, 3] },
    { name: 'coordinators', type: 'struct', array: true, versions: [4, N], fields: [
      { name: 'key', type: 'string', versions: [4, N] },
      { name: 'nodeId', type: 'int32', versions: [4, N] },
      { name: 'host', type: 'string', versions: [4, N] },
      { name: 'port', type: 'int32', versions: [4, N] },
      { name: 'errorCode', type: 'int16', versions: [4, N] },
      { name: 'errorMessage', type: 'string', versions: [4, N], nullable: [4, N] },
    ] },
  ] },
  { name: 'JoinGroupRequest', apiKey: 11, kind: 'request', validVersions: [0, 9], flexibleFrom: 6, fields: [
    { name: 'groupId', type: 'string', versions: [0, N] },
    { name: 'sessionTimeoutMs', type: 'int32', versions: [0, N] },
    { name: 'rebalanceTimeoutMs', type: 'int32', versions: [1, N], default: -1 },
    { name: 'memberId', type: 'string', versions: [0, N] },
    { name: 'groupInstanceId', type: 'string', versions: [5, N], nullable: [5, N], default: null },
    { name: 'protocolType', type: 'string', versions: [0, N] },
    { name: 'protocols', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'name', type: 'string', versions: [0, N] },
      { name: 'metadata', type: 'bytes', versions: [0, N] },
    ] },
    { name: 'reason', type: 'string', versions: [8, N], nullable: [8, N], default: null },
  ] },
  { name: 'JoinGroupResponse', apiKey: 11, kind: 'response', validVersions: [0, 9], flexibleFrom: 6, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [2, N] },
    { name: 'errorCode', type: 'int16', versions: [0, N] },
    { name: 'generationId', type: 'int32', versions: [0, N], default: -1 },
    { name: 'protocolType', type: 'string', versions: [7, N], nullable: [7, N], default: null },
    { name: 'protocolName', type: 'string', versions: [0, N], nullable: [7, N] },
    { name: 'leader', type: 'string', versions: [0, N] },
    { name: 'skipAssignment', type: 'bool', versions: [9, N], default: false },
    { name: 'memberId', type: 'string', versions: [0, N] },
    { name: 'members', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'memberId', type: 'string', versions: [0, N] },
      { name: 'groupInstanceId', type: 'string', versions: [5, N], nullable: [5, N], default: null },
      { name: 'metadata', type: 'bytes', versions: [0, N] },
    ] },
  ] },
  { name: 'HeartbeatRequest', apiKey: 12, kind: 'request', validVersions: [0, 4], flexibleFrom: 4, fields: [
    { name: 'groupId', type: 'string', versions: [0, N] },
    { name: 'generationId', type: 'int32', versions: [0, N] },
    { name: 'memberId', type: 'string', versions: [0, N] },
    { name: 'groupInstanceId', type: 'string', versions: [3, N], nullable: [3, N], default: null },
  ] },
  { name: 'HeartbeatResponse', apiKey: 12, kind: 'response', validVersions: [0, 4], flexibleFrom: 4, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [1, N] },
    { name: 'errorCode', type: 'int16', versions: [0, N] },
  ] },
  { name: 'LeaveGroupRequest', apiKey: 13, kind: 'request', validVersions: [0, 5], flexibleFrom: 4, fields: [
    { name: 'groupId', type: 'string', versions: [0, N] },
    { name: 'memberId', type: 'string', versions: [0, 2] },
    { name: 'members', type: 'struct', array: true, versions: [3, N], fields: [
      { name: 'memberId', type: 'string', versions: [3, N] },
      { name: 'groupInstanceId', type: 'string', versions: [3, N], nullable: [3, N], default: null },
      { name: 'reason', type: 'string', versions: [5, N], nullable: [5, N], default: null },
    ] },
  ] },
  { name: 'LeaveGroupResponse', apiKey: 13, kind: 'response', validVersions: [0, 5], flexibleFrom: 4, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [1, N] },
    { name: 'errorCode', type: 'int16', versions: [0, N] },
    { name: 'members', type: 'struct', array: true, versions: [3, N], fields: [
      { name: 'memberId', type: 'string', versions: [3, N] },
      { name: 'groupInstanceId', type: 'string', versions: [3, N], nullable: [3, N] },
      { name: 'errorCode', type: 'int16', versions: [3, N] },
    ] },
  ] },
  { name: 'SyncGroupRequest', apiKey: 14, kind: 'request', validVersions: [0, 5], flexibleFrom: 4, fields: [
    { name: 'groupId', type: 'string', versions: [0, N] },
    { name: 'generationId', type: 'int32', versions: [0, N] },
    { name: 'memberId', type: 'string', versions: [0, N] },
    { name: 'groupInstanceId', type: 'string', versions: [3, N], nullable: [3, N], default: null },
    { name: 'protocolType', type: 'string', versions: [5, N], nullable: [5, N], default: null },
    { name: 'protocolName', type: 'string', versions: [5, N], nullable: [5, N], default: null },
    { name: 'assignments', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'memberId', type: 'string', versions: [0, N] },
      { name: 'assignment', type: 'bytes', versions: [0, N] },
    ] },
  ] },
  { name: 'SyncGroupResponse', apiKey: 14, kind: 'response', validVersions: [0, 5], flexibleFrom: 4, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [1, N] },
    { name: 'errorCode', type: 'int16', versions: [0, N] },
    { name: 'protocolType', type: 'string', versions: [5, N], nullable: [5, N], default: null },
    { name: 'protocolName', type: 'string', versions: [5, N], nullable: [5, N], default: null },
    { name: 'assignment', type: 'bytes', versions: [0, N] },
  ] },
  { name: 'DescribeGroupsRequest', apiKey: 15, kind: 'request', validVersions: [0, 6], flexibleFrom: 5, fields: [
    { name: 'groups', type: 'string', array: true, versions: [0, N] },
    { name: 'includeAuthorizedOperations', type: 'bool', versions: [3, N] },
  ] },
  { name: 'DescribeGroupsResponse', apiKey: 15, kind: 'response', validVersions: [0, 6], flexibleFrom: 5, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [1, N] },
    { name: 'groups', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'errorCode', type: 'int16', versions: [0, N] },
      { name: 'errorMessage', type: 'string', versions: [6, N], nullable: [6, N], default: null },
      { name: 'groupId', type: 'string', versions: [0, N] },
      { name: 'groupState', type: 'string', versions: [0, N] },
      { name: 'protocolType', type: 'string', versions: [0, N] },
      { name: 'protocolData', type: 'string', versions: [0, N] },
      { name: 'members', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'memberId', type: 'string', versions: [0, N] },
        { name: 'groupInstanceId', type: 'string', versions: [4, N], nullable: [4, N], default: null },
        { name: 'clientId', type: 'string', versions: [0, N] },
        { name: 'clientHost', type: 'string', versions: [0, N] },
        { name: 'memberMetadata', type: 'bytes', versions: [0, N] },
        { name: 'memberAssignment', type: 'bytes', versions: [0, N] },
      ] },
      { name: 'authorizedOperations', type: 'int32', versions: [3, N], default: -2147483648 },
    ] },
  ] },
  { name: 'ListGroupsRequest', apiKey: 16, kind: 'request', validVersions: [0, 5], flexibleFrom: 3, fields: [
    { name: 'statesFilter', type: 'string', array: true, versions: [4, N] },
    { name: 'typesFilter', type: 'string', array: true, versions: [5, N] },
  ] },
  { name: 'ListGroupsResponse', apiKey: 16, kind: 'response', validVersions: [0, 5], flexibleFrom: 3, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [1, N] },
    { name: 'errorCode', type: 'int16', versions: [0, N] },
    { name: 'groups', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'groupId', type: 'string', versions: [0, N] },
      { name: 'protocolType', type: 'string', versions: [0, N] },
      { name: 'groupState', type: 'string', versions: [4, N] },
      { name: 'groupType', type: 'string', versions: [5, N] },
    ] },
  ] },
  { name: 'SaslHandshakeRequest', apiKey: 17, kind: 'request', validVersions: [0, 1], flexibleFrom: -1, fields: [
    { name: 'mechanism', type: 'string', versions: [0, N] },
  ] },
  { name: 'SaslHandshakeResponse', apiKey: 17, kind: 'response', validVersions: [0, 1], flexibleFrom: -1, fields: [
    { name: 'errorCode', type: 'int16', versions: [0, N] },
    { name: 'mechanisms', type: 'string', array: true, versions: [0, N] },
  ] },
  { name: 'ApiVersionsRequest', apiKey: 18, kind: 'request', validVersions: [0, 4], flexibleFrom: 3, fields: [
    { name: 'clientSoftwareName', type: 'string', versions: [3, N] },
    { name: 'clientSoftwareVersion', type: 'string', versions: [3, N] },
  ] },
  { name: 'ApiVersionsResponse', apiKey: 18, kind: 'response', validVersions: [0, 4], flexibleFrom: 3, fields: [
    { name: 'errorCode', type: 'int16', versions: [0, N] },
    { name: 'apiKeys', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'apiKey', type: 'int16', versions: [0, N] },
      { name: 'minVersion', type: 'int16', versions: [0, N] },
      { name: 'maxVersion', type: 'int16', versions: [0, N] },
    ] },
    { name: 'throttleTimeMs', type: 'int32', versions: [1, N] },
    { name: 'supportedFeatures', type: 'struct', array: true, versions: [3, N], tagged: [3, N], tag: 0, fields: [
      { name: 'name', type: 'string', versions: [3, N] },
      { name: 'minVersion', type: 'int16', versions: [3, N] },
      { name: 'maxVersion', type: 'int16', versions: [3, N] },
    ] },
    { name: 'finalizedFeaturesEpoch', type: 'int64', versions: [3, N], tagged: [3, N], tag: 1, default: -1 },
    { name: 'finalizedFeatures', type: 'struct', array: true, versions: [3, N], tagged: [3, N], tag: 2, fields: [
      { name: 'name', type: 'string', versions: [3, N] },
      { name: 'maxVersionLevel', type: 'int16', versions: [3, N] },
      { name: 'minVersionLevel', type: 'int16', versions: [3, N] },
    ] },
    { name: 'zkMigrationReady', type: 'bool', versions: [3, N], tagged: [3, N], tag: 3, default: false },
  ] },
  { name: 'CreateTopicsRequest', apiKey: 19, kind: 'request', validVersions: [0, 7], flexibleFrom: 5, fields: [
    { name: 'topics', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'name', type: 'string', versions: [0, N] },
      { name: 'numPartitions', type: 'int32', versions: [0, N] },
      { name: 'replicationFactor', type: 'int16', versions: [0, N] },
      { name: 'assignments', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'partitionIndex', type: 'int32', versions: [0, N] },
        { name: 'brokerIds', type: 'int32', array: true, versions: [0, N] },
      ] },
      { name: 'configs', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'name', type: 'string', versions: [0, N] },
        { name: 'value', type: 'string', versions: [0, N], nullable: [0, N] },
      ] },
    ] },
    { name: 'timeoutMs', type: 'int32', versions: [0, N], default: 60000 },
    { name: 'validateOnly', type: 'bool', versions: [1, N], default: false },
  ] },
  { name: 'CreateTopicsResponse', apiKey: 19, kind: 'response', validVersions: [0, 7], flexibleFrom: 5, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [2, N] },
    { name: 'topics', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'name', type: 'string', versions: [0, N] },
      { name: 'topicId', type: 'uuid', versions: [7, N] },
      { name: 'errorCode', type: 'int16', versions: [0, N] },
      { name: 'errorMessage', type: 'string', versions: [1, N], nullable: [0, N] },
      { name: 'topicConfigErrorCode', type: 'int16', versions: [5, N], tagged: [5, N], tag: 0 },
      { name: 'numPartitions', type: 'int32', versions: [5, N], default: -1 },
      { name: 'replicationFactor', type: 'int16', versions: [5, N], default: -1 },
      { name: 'configs', type: 'struct', array: true, versions: [5, N], nullable: [5, N], fields: [
        { name: 'name', type: 'string', versions: [5, N] },
        { name: 'value', type: 'string', versions: [5, N], nullable: [5, N] },
        { name: 'readOnly', type: 'bool', versions: [5, N] },
        { name: 'configSource', type: 'int8', versions: [5, N], default: -1 },
        { name: 'isSensitive', type: 'bool', versions: [5, N] },
      ] },
    ] },
  ] },
  { name: 'DeleteTopicsRequest', apiKey: 20, kind: 'request', validVersions: [0, 6], flexibleFrom: 4, fields: [
    { name: 'topics', type: 'struct', array: true, versions: [6, N], fields: [
      { name: 'name', type: 'string', versions: [6, N], nullable: [6, N], default: null },
      { name: 'topicId', type: 'uuid', versions: [6, N] },
    ] },
    { name: 'topicNames', type: 'string', array: true, versions: [0, 5] },
    { name: 'timeoutMs', type: 'int32', versions: [0, N] },
  ] },
  { name: 'DeleteTopicsResponse', apiKey: 20, kind: 'response', validVersions: [0, 6], flexibleFrom: 4, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [1, N] },
    { name: 'responses', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'name', type: 'string', versions: [0, N], nullable: [6, N] },
      { name: 'topicId', type: 'uuid', versions: [6, N] },
      { name: 'errorCode', type: 'int16', versions: [0, N] },
      { name: 'errorMessage', type: 'string', versions: [5, N], nullable: [5, N], default: null },
    ] },
  ] },
  { name: 'DeleteRecordsRequest', apiKey: 21, kind: 'request', validVersions: [0, 2], flexibleFrom: 2, fields: [
    { name: 'topics', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'name', type: 'string', versions: [0, N] },
      { name: 'partitions', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'partitionIndex', type: 'int32', versions: [0, N] },
        { name: 'offset', type: 'int64', versions: [0, N] },
      ] },
    ] },
    { name: 'timeoutMs', type: 'int32', versions: [0, N] },
  ] },
  { name: 'DeleteRecordsResponse', apiKey: 21, kind: 'response', validVersions: [0, 2], flexibleFrom: 2, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'topics', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'name', type: 'string', versions: [0, N] },
      { name: 'partitions', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'partitionIndex', type: 'int32', versions: [0, N] },
        { name: 'lowWatermark', type: 'int64', versions: [0, N] },
        { name: 'errorCode', type: 'int16', versions: [0, N] },
      ] },
    ] },
  ] },
  { name: 'InitProducerIdRequest', apiKey: 22, kind: 'request', validVersions: [0, 5], flexibleFrom: 2, fields: [
    { name: 'transactionalId', type: 'string', versions: [0, N], nullable: [0, N] },
    { name: 'transactionTimeoutMs', type: 'int32', versions: [0, N] },
    { name: 'producerId', type: 'int64', versions: [3, N], default: -1 },
    { name: 'producerEpoch', type: 'int16', versions: [3, N], default: -1 },
  ] },
  { name: 'InitProducerIdResponse', apiKey: 22, kind: 'response', validVersions: [0, 5], flexibleFrom: 2, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'errorCode', type: 'int16', versions: [0, N] },
    { name: 'producerId', type: 'int64', versions: [0, N], default: -1 },
    { name: 'producerEpoch', type: 'int16', versions: [0, N] },
  ] },
  { name: 'OffsetForLeaderEpochRequest', apiKey: 23, kind: 'request', validVersions: [0, 4], flexibleFrom: 4, fields: [
    { name: 'replicaId', type: 'int32', versions: [3, N], default: -2 },
    { name: 'topics', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'topic', type: 'string', versions: [0, N] },
      { name: 'partitions', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'partition', type: 'int32', versions: [0, N] },
        { name: 'currentLeaderEpoch', type: 'int32', versions: [2, N], default: -1 },
        { name: 'leaderEpoch', type: 'int32', versions: [0, N] },
      ] },
    ] },
  ] },
  { name: 'OffsetForLeaderEpochResponse', apiKey: 23, kind: 'response', validVersions: [0, 4], flexibleFrom: 4, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [2, N] },
    { name: 'topics', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'topic', type: 'string', versions: [0, N] },
      { name: 'partitions', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'errorCode', type: 'int16', versions: [0, N] },
        { name: 'partition', type: 'int32', versions: [0, N] },
        { name: 'leaderEpoch', type: 'int32', versions: [1, N], default: -1 },
        { name: 'endOffset', type: 'int64', versions: [0, N], default: -1 },
      ] },
    ] },
  ] },
  { name: 'AddPartitionsToTxnRequest', apiKey: 24, kind: 'request', validVersions: [0, 5], flexibleFrom: 3, fields: [
    { name: 'transactions', type: 'struct', array: true, versions: [4, N], fields: [
      { name: 'transactionalId', type: 'string', versions: [4, N] },
      { name: 'producerId', type: 'int64', versions: [4, N] },
      { name: 'producerEpoch', type: 'int16', versions: [4, N] },
      { name: 'verifyOnly', type: 'bool', versions: [4, N], default: false },
      { name: 'topics', type: 'struct', array: true, versions: [4, N], fields: [
        { name: 'name', type: 'string', versions: [0, N] },
        { name: 'partitions', type: 'int32', array: true, versions: [0, N] },
      ] },
    ] },
    { name: 'v3AndBelowTransactionalId', type: 'string', versions: [0, 3] },
    { name: 'v3AndBelowProducerId', type: 'int64', versions: [0, 3] },
    { name: 'v3AndBelowProducerEpoch', type: 'int16', versions: [0, 3] },
    { name: 'v3AndBelowTopics', type: 'struct', array: true, versions: [0, 3], fields: [
      { name: 'name', type: 'string', versions: [0, N] },
      { name: 'partitions', type: 'int32', array: true, versions: [0, N] },
    ] },
  ] },
  { name: 'AddPartitionsToTxnResponse', apiKey: 24, kind: 'response', validVersions: [0, 5], flexibleFrom: 3, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'errorCode', type: 'int16', versions: [4, N] },
    { name: 'resultsByTransaction', type: 'struct', array: true, versions: [4, N], fields: [
      { name: 'transactionalId', type: 'string', versions: [4, N] },
      { name: 'topicResults', type: 'struct', array: true, versions: [4, N], fields: [
        { name: 'name', type: 'string', versions: [0, N] },
        { name: 'resultsByPartition', type: 'struct', array: true, versions: [0, N], fields: [
          { name: 'partitionIndex', type: 'int32', versions: [0, N] },
          { name: 'partitionErrorCode', type: 'int16', versions: [0, N] },
        ] },
      ] },
    ] },
    { name: 'resultsByTopicV3AndBelow', type: 'struct', array: true, versions: [0, 3], fields: [
      { name: 'name', type: 'string', versions: [0, N] },
      { name: 'resultsByPartition', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'partitionIndex', type: 'int32', versions: [0, N] },
        { name: 'partitionErrorCode', type: 'int16', versions: [0, N] },
      ] },
    ] },
  ] },
  { name: 'AddOffsetsToTxnRequest', apiKey: 25, kind: 'request', validVersions: [0, 4], flexibleFrom: 3, fields: [
    { name: 'transactionalId', type: 'string', versions: [0, N] },
    { name: 'producerId', type: 'int64', versions: [0, N] },
    { name: 'producerEpoch', type: 'int16', versions: [0, N] },
    { name: 'groupId', type: 'string', versions: [0, N] },
  ] },
  { name: 'AddOffsetsToTxnResponse', apiKey: 25, kind: 'response', validVersions: [0, 4], flexibleFrom: 3, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'errorCode', type: 'int16', versions: [0, N] },
  ] },
  { name: 'EndTxnRequest', apiKey: 26, kind: 'request', validVersions: [0, 5], flexibleFrom: 3, fields: [
    { name: 'transactionalId', type: 'string', versions: [0, N] },
    { name: 'producerId', type: 'int64', versions: [0, N] },
    { name: 'producerEpoch', type: 'int16', versions: [0, N] },
    { name: 'committed', type: 'bool', versions: [0, N] },
  ] },
  { name: 'EndTxnResponse', apiKey: 26, kind: 'response', validVersions: [0, 5], flexibleFrom: 3, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'errorCode', type: 'int16', versions: [0, N] },
    { name: 'producerId', type: 'int64', versions: [5, N], default: -1 },
    { name: 'producerEpoch', type: 'int16', versions: [5, N], default: -1 },
  ] },
  { name: 'WriteTxnMarkersRequest', apiKey: 27, kind: 'request', validVersions: [0, 2], flexibleFrom: 1, fields: [
    { name: 'markers', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'producerId', type: 'int64', versions: [0, N] },
      { name: 'producerEpoch', type: 'int16', versions: [0, N] },
      { name: 'transactionResult', type: 'bool', versions: [0, N] },
      { name: 'topics', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'name', type: 'string', versions: [0, N] },
        { name: 'partitionIndexes', type: 'int32', array: true, versions: [0, N] },
      ] },
      { name: 'coordinatorEpoch', type: 'int32', versions: [0, N] },
      { name: 'transactionVersion', type: 'int8', versions: [2, N], default: 0 },
    ] },
  ] },
  { name: 'WriteTxnMarkersResponse', apiKey: 27, kind: 'response', validVersions: [0, 2], flexibleFrom: 1, fields: [
    { name: 'markers', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'producerId', type: 'int64', versions: [0, N] },
      { name: 'topics', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'name', type: 'string', versions: [0, N] },
        { name: 'partitions', type: 'struct', array: true, versions: [0, N], fields: [
          { name: 'partitionIndex', type: 'int32', versions: [0, N] },
          { name: 'errorCode', type: 'int16', versions: [0, N] },
        ] },
      ] },
    ] },
  ] },
  { name: 'TxnOffsetCommitRequest', apiKey: 28, kind: 'request', validVersions: [0, 5], flexibleFrom: 3, fields: [
    { name: 'transactionalId', type: 'string', versions: [0, N] },
    { name: 'groupId', type: 'string', versions: [0, N] },
    { name: 'producerId', type: 'int64', versions: [0, N] },
    { name: 'producerEpoch', type: 'int16', versions: [0, N] },
    { name: 'generationId', type: 'int32', versions: [3, N], default: -1 },
    { name: 'memberId', type: 'string', versions: [3, N], default: '' },
    { name: 'groupInstanceId', type: 'string', versions: [3, N], nullable: [3, N], default: null },
    { name: 'topics', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'name', type: 'string', versions: [0, N] },
      { name: 'partitions', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'partitionIndex', type: 'int32', versions: [0, N] },
        { name: 'committedOffset', type: 'int64', versions: [0, N] },
        { name: 'committedLeaderEpoch', type: 'int32', versions: [2, N], default: -1 },
        { name: 'committedMetadata', type: 'string', versions: [0, N], nullable: [0, N] },
      ] },
    ] },
  ] },
  { name: 'TxnOffsetCommitResponse', apiKey: 28, kind: 'response', validVersions: [0, 5], flexibleFrom: 3, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'topics', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'name', type: 'string', versions: [0, N] },
      { name: 'partitions', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'partitionIndex', type: 'int32', versions: [0, N] },
        { name: 'errorCode', type: 'int16', versions: [0, N] },
      ] },
    ] },
  ] },
  { name: 'DescribeAclsRequest', apiKey: 29, kind: 'request', validVersions: [0, 3], flexibleFrom: 2, fields: [
    { name: 'resourceTypeFilter', type: 'int8', versions: [0, N] },
    { name: 'resourceNameFilter', type: 'string', versions: [0, N], nullable: [0, N] },
    { name: 'patternTypeFilter', type: 'int8', versions: [1, N], default: 3 },
    { name: 'principalFilter', type: 'string', versions: [0, N], nullable: [0, N] },
    { name: 'hostFilter', type: 'string', versions: [0, N], nullable: [0, N] },
    { name: 'operation', type: 'int8', versions: [0, N] },
    { name: 'permissionType', type: 'int8', versions: [0, N] },
  ] },
  { name: 'DescribeAclsResponse', apiKey: 29, kind: 'response', validVersions: [0, 3], flexibleFrom: 2, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'errorCode', type: 'int16', versions: [0, N] },
    { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N] },
    { name: 'resources', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'resourceType', type: 'int8', versions: [0, N] },
      { name: 'resourceName', type: 'string', versions: [0, N] },
      { name: 'patternType', type: 'int8', versions: [1, N], default: 3 },
      { name: 'acls', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'principal', type: 'string', versions: [0, N] },
        { name: 'host', type: 'string', versions: [0, N] },
        { name: 'operation', type: 'int8', versions: [0, N] },
        { name: 'permissionType', type: 'int8', versions: [0, N] },
      ] },
    ] },
  ] },
  { name: 'CreateAclsRequest', apiKey: 30, kind: 'request', validVersions: [0, 3], flexibleFrom: 2, fields: [
    { name: 'creations', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'resourceType', type: 'int8', versions: [0, N] },
      { name: 'resourceName', type: 'string', versions: [0, N] },
      { name: 'resourcePatternType', type: 'int8', versions: [1, N], default: 3 },
      { name: 'principal', type: 'string', versions: [0, N] },
      { name: 'host', type: 'string', versions: [0, N] },
      { name: 'operation', type: 'int8', versions: [0, N] },
      { name: 'permissionType', type: 'int8', versions: [0, N] },
    ] },
  ] },
  { name: 'CreateAclsResponse', apiKey: 30, kind: 'response', validVersions: [0, 3], flexibleFrom: 2, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'results', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'errorCode', type: 'int16', versions: [0, N] },
      { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N] },
    ] },
  ] },
  { name: 'DeleteAclsRequest', apiKey: 31, kind: 'request', validVersions: [0, 3], flexibleFrom: 2, fields: [
    { name: 'filters', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'resourceTypeFilter', type: 'int8', versions: [0, N] },
      { name: 'resourceNameFilter', type: 'string', versions: [0, N], nullable: [0, N] },
      { name: 'patternTypeFilter', type: 'int8', versions: [1, N], default: 3 },
      { name: 'principalFilter', type: 'string', versions: [0, N], nullable: [0, N] },
      { name: 'hostFilter', type: 'string', versions: [0, N], nullable: [0, N] },
      { name: 'operation', type: 'int8', versions: [0, N] },
      { name: 'permissionType', type: 'int8', versions: [0, N] },
    ] },
  ] },
  { name: 'DeleteAclsResponse', apiKey: 31, kind: 'response', validVersions: [0, 3], flexibleFrom: 2, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'filterResults', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'errorCode', type: 'int16', versions: [0, N] },
      { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N] },
      { name: 'matchingAcls', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'errorCode', type: 'int16', versions: [0, N] },
        { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N] },
        { name: 'resourceType', type: 'int8', versions: [0, N] },
        { name: 'resourceName', type: 'string', versions: [0, N] },
        { name: 'patternType', type: 'int8', versions: [1, N], default: 3 },
        { name: 'principal', type: 'string', versions: [0, N] },
        { name: 'host', type: 'string', versions: [0, N] },
        { name: 'operation', type: 'int8', versions: [0, N] },
        { name: 'permissionType', type: 'int8', versions: [0, N] },
      ] },
    ] },
  ] },
  { name: 'DescribeConfigsRequest', apiKey: 32, kind: 'request', validVersions: [0, 4], flexibleFrom: 4, fields: [
    { name: 'resources', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'resourceType', type: 'int8', versions: [0, N] },
      { name: 'resourceName', type: 'string', versions: [0, N] },
      { name: 'configurationKeys', type: 'string', array: true, versions: [0, N], nullable: [0, N] },
    ] },
    { name: 'includeSynonyms', type: 'bool', versions: [1, N], default: false },
    { name: 'includeDocumentation', type: 'bool', versions: [3, N], default: false },
  ] },
  { name: 'DescribeConfigsResponse', apiKey: 32, kind: 'response', validVersions: [0, 4], flexibleFrom: 4, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'results', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'errorCode', type: 'int16', versions: [0, N] },
      { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N] },
      { name: 'resourceType', type: 'int8', versions: [0, N] },
      { name: 'resourceName', type: 'string', versions: [0, N] },
      { name: 'configs', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'name', type: 'string', versions: [0, N] },
        { name: 'value', type: 'string', versions: [0, N], nullable: [0, N] },
        { name: 'readOnly', type: 'bool', versions: [0, N] },
        { name: 'isDefault', type: 'bool', versions: [0, 0] },
        { name: 'configSource', type: 'int8', versions: [1, N], default: -1 },
        { name: 'isSensitive', type: 'bool', versions: [0, N] },
        { name: 'synonyms', type: 'struct', array: true, versions: [1, N], fields: [
          { name: 'name', type: 'string', versions: [1, N] },
          { name: 'value', type: 'string', versions: [1, N], nullable: [0, N] },
          { name: 'source', type: 'int8', versions: [1, N] },
        ] },
        { name: 'configType', type: 'int8', versions: [3, N], default: 0 },
        { name: 'documentation', type: 'string', versions: [3, N], nullable: [0, N] },
      ] },
    ] },
  ] },
  { name: 'AlterConfigsRequest', apiKey: 33, kind: 'request', validVersions: [0, 2], flexibleFrom: 2, fields: [
    { name: 'resources', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'resourceType', type: 'int8', versions: [0, N] },
      { name: 'resourceName', type: 'string', versions: [0, N] },
      { name: 'configs', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'name', type: 'string', versions: [0, N] },
        { name: 'value', type: 'string', versions: [0, N], nullable: [0, N] },
      ] },
    ] },
    { name: 'validateOnly', type: 'bool', versions: [0, N] },
  ] },
  { name: 'AlterConfigsResponse', apiKey: 33, kind: 'response', validVersions: [0, 2], flexibleFrom: 2, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'responses', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'errorCode', type: 'int16', versions: [0, N] },
      { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N] },
      { name: 'resourceType', type: 'int8', versions: [0, N] },
      { name: 'resourceName', type: 'string', versions: [0, N] },
    ] },
  ] },
  { name: 'AlterReplicaLogDirsRequest', apiKey: 34, kind: 'request', validVersions: [0, 2], flexibleFrom: 2, fields: [
    { name: 'dirs', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'path', type: 'string', versions: [0, N] },
      { name: 'topics', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'name', type: 'string', versions: [0, N] },
        { name: 'partitions', type: 'int32', array: true, versions: [0, N] },
      ] },
    ] },
  ] },
  { name: 'AlterReplicaLogDirsResponse', apiKey: 34, kind: 'response', validVersions: [0, 2], flexibleFrom: 2, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'results', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'topicName', type: 'string', versions: [0, N] },
      { name: 'partitions', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'partitionIndex', type: 'int32', versions: [0, N] },
        { name: 'errorCode', type: 'int16', versions: [0, N] },
      ] },
    ] },
  ] },
  { name: 'DescribeLogDirsRequest', apiKey: 35, kind: 'request', validVersions: [0, 4], flexibleFrom: 2, fields: [
    { name: 'topics', type: 'struct', array: true, versions: [0, N], nullable: [0, N], fields: [
      { name: 'topic', type: 'string', versions: [0, N] },
      { name: 'partitions', type: 'int32', array: true, versions: [0, N] },
    ] },
  ] },
  { name: 'DescribeLogDirsResponse', apiKey: 35, kind: 'response', validVersions: [0, 4], flexibleFrom: 2, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'errorCode', type: 'int16', versions: [3, N] },
    { name: 'results', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'errorCode', type: 'int16', versions: [0, N] },
      { name: 'logDir', type: 'string', versions: [0, N] },
      { name: 'topics', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'name', type: 'string', versions: [0, N] },
        { name: 'partitions', type: 'struct', array: true, versions: [0, N], fields: [
          { name: 'partitionIndex', type: 'int32', versions: [0, N] },
          { name: 'partitionSize', type: 'int64', versions: [0, N] },
          { name: 'offsetLag', type: 'int64', versions: [0, N] },
          { name: 'isFutureKey', type: 'bool', versions: [0, N] },
        ] },
      ] },
      { name: 'totalBytes', type: 'int64', versions: [4, N], default: -1 },
      { name: 'usableBytes', type: 'int64', versions: [4, N], default: -1 },
    ] },
  ] },
  { name: 'SaslAuthenticateRequest', apiKey: 36, kind: 'request', validVersions: [0, 2], flexibleFrom: 2, fields: [
    { name: 'authBytes', type: 'bytes', versions: [0, N] },
  ] },
  { name: 'SaslAuthenticateResponse', apiKey: 36, kind: 'response', validVersions: [0, 2], flexibleFrom: 2, fields: [
    { name: 'errorCode', type: 'int16', versions: [0, N] },
    { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N] },
    { name: 'authBytes', type: 'bytes', versions: [0, N] },
    { name: 'sessionLifetimeMs', type: 'int64', versions: [1, N], default: 0 },
  ] },
  { name: 'CreatePartitionsRequest', apiKey: 37, kind: 'request', validVersions: [0, 3], flexibleFrom: 2, fields: [
    { name: 'topics', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'name', type: 'string', versions: [0, N] },
      { name: 'count', type: 'int32', versions: [0, N] },
      { name: 'assignments', type: 'struct', array: true, versions: [0, N], nullable: [0, N], fields: [
        { name: 'brokerIds', type: 'int32', array: true, versions: [0, N] },
      ] },
    ] },
    { name: 'timeoutMs', type: 'int32', versions: [0, N] },
    { name: 'validateOnly', type: 'bool', versions: [0, N] },
  ] },
  { name: 'CreatePartitionsResponse', apiKey: 37, kind: 'response', validVersions: [0, 3], flexibleFrom: 2, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'results', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'name', type: 'string', versions: [0, N] },
      { name: 'errorCode', type: 'int16', versions: [0, N] },
      { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N], default: null },
    ] },
  ] },
  { name: 'CreateDelegationTokenRequest', apiKey: 38, kind: 'request', validVersions: [0, 3], flexibleFrom: 2, fields: [
    { name: 'ownerPrincipalType', type: 'string', versions: [3, N], nullable: [3, N] },
    { name: 'ownerPrincipalName', type: 'string', versions: [3, N], nullable: [3, N] },
    { name: 'renewers', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'principalType', type: 'string', versions: [0, N] },
      { name: 'principalName', type: 'string', versions: [0, N] },
    ] },
    { name: 'maxLifetimeMs', type: 'int64', versions: [0, N] },
  ] },
  { name: 'CreateDelegationTokenResponse', apiKey: 38, kind: 'response', validVersions: [0, 3], flexibleFrom: 2, fields: [
    { name: 'errorCode', type: 'int16', versions: [0, N] },
    { name: 'principalType', type: 'string', versions: [0, N] },
    { name: 'principalName', type: 'string', versions: [0, N] },
    { name: 'tokenRequesterPrincipalType', type: 'string', versions: [3, N] },
    { name: 'tokenRequesterPrincipalName', type: 'string', versions: [3, N] },
    { name: 'issueTimestampMs', type: 'int64', versions: [0, N] },
    { name: 'expiryTimestampMs', type: 'int64', versions: [0, N] },
    { name: 'maxTimestampMs', type: 'int64', versions: [0, N] },
    { name: 'tokenId', type: 'string', versions: [0, N] },
    { name: 'hmac', type: 'bytes', versions: [0, N] },
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
  ] },
  { name: 'RenewDelegationTokenRequest', apiKey: 39, kind: 'request', validVersions: [0, 2], flexibleFrom: 2, fields: [
    { name: 'hmac', type: 'bytes', versions: [0, N] },
    { name: 'renewPeriodMs', type: 'int64', versions: [0, N] },
  ] },
  { name: 'RenewDelegationTokenResponse', apiKey: 39, kind: 'response', validVersions: [0, 2], flexibleFrom: 2, fields: [
    { name: 'errorCode', type: 'int16', versions: [0, N] },
    { name: 'expiryTimestampMs', type: 'int64', versions: [0, N] },
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
  ] },
  { name: 'ExpireDelegationTokenRequest', apiKey: 40, kind: 'request', validVersions: [0, 2], flexibleFrom: 2, fields: [
    { name: 'hmac', type: 'bytes', versions: [0, N] },
    { name: 'expiryTimePeriodMs', type: 'int64', versions: [0, N] },
  ] },
  { name: 'ExpireDelegationTokenResponse', apiKey: 40, kind: 'response', validVersions: [0, 2], flexibleFrom: 2, fields: [
    { name: 'errorCode', type: 'int16', versions: [0, N] },
    { name: 'expiryTimestampMs', type: 'int64', versions: [0, N] },
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
  ] },
  { name: 'DescribeDelegationTokenRequest', apiKey: 41, kind: 'request', validVersions: [0, 3], flexibleFrom: 2, fields: [
    { name: 'owners', type: 'struct', array: true, versions: [0, N], nullable: [0, N], fields: [
      { name: 'principalType', type: 'string', versions: [0, N] },
      { name: 'principalName', type: 'string', versions: [0, N] },
    ] },
  ] },
  { name: 'DescribeDelegationTokenResponse', apiKey: 41, kind: 'response', validVersions: [0, 3], flexibleFrom: 2, fields: [
    { name: 'errorCode', type: 'int16', versions: [0, N] },
    { name: 'tokens', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'principalType', type: 'string', versions: [0, N] },
      { name: 'principalName', type: 'string', versions: [0, N] },
      { name: 'tokenRequesterPrincipalType', type: 'string', versions: [3, N] },
      { name: 'tokenRequesterPrincipalName', type: 'string', versions: [3, N] },
      { name: 'issueTimestamp', type: 'int64', versions: [0, N] },
      { name: 'expiryTimestamp', type: 'int64', versions: [0, N] },
      { name: 'maxTimestamp', type: 'int64', versions: [0, N] },
      { name: 'tokenId', type: 'string', versions: [0, N] },
      { name: 'hmac', type: 'bytes', versions: [0, N] },
      { name: 'renewers', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'principalType', type: 'string', versions: [0, N] },
        { name: 'principalName', type: 'string', versions: [0, N] },
      ] },
    ] },
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
  ] },
  { name: 'DeleteGroupsRequest', apiKey: 42, kind: 'request', validVersions: [0, 2], flexibleFrom: 2, fields: [
    { name: 'groupsNames', type: 'string', array: true, versions: [0, N] },
  ] },
  { name: 'DeleteGroupsResponse', apiKey: 42, kind: 'response', validVersions: [0, 2], flexibleFrom: 2, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'results', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'groupId', type: 'string', versions: [0, N] },
      { name: 'errorCode', type: 'int16', versions: [0, N] },
    ] },
  ] },
  { name: 'ElectLeadersRequest', apiKey: 43, kind: 'request', validVersions: [0, 2], flexibleFrom: 2, fields: [
    { name: 'electionType', type: 'int8', versions: [1, N] },
    { name: 'topicPartitions', type: 'struct', array: true, versions: [0, N], nullable: [0, N], fields: [
      { name: 'topic', type: 'string', versions: [0, N] },
      { name: 'partitions', type: 'int32', array: true, versions: [0, N] },
    ] },
    { name: 'timeoutMs', type: 'int32', versions: [0, N], default: 60000 },
  ] },
  { name: 'ElectLeadersResponse', apiKey: 43, kind: 'response', validVersions: [0, 2], flexibleFrom: 2, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'errorCode', type: 'int16', versions: [1, N] },
    { name: 'replicaElectionResults', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'topic', type: 'string', versions: [0, N] },
      { name: 'partitionResult', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'partitionId', type: 'int32', versions: [0, N] },
        { name: 'errorCode', type: 'int16', versions: [0, N] },
        { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N] },
      ] },
    ] },
  ] },
  { name: 'IncrementalAlterConfigsRequest', apiKey: 44, kind: 'request', validVersions: [0, 1], flexibleFrom: 1, fields: [
    { name: 'resources', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'resourceType', type: 'int8', versions: [0, N] },
      { name: 'resourceName', type: 'string', versions: [0, N] },
      { name: 'configs', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'name', type: 'string', versions: [0, N] },
        { name: 'configOperation', type: 'int8', versions: [0, N] },
        { name: 'value', type: 'string', versions: [0, N], nullable: [0, N] },
      ] },
    ] },
    { name: 'validateOnly', type: 'bool', versions: [0, N] },
  ] },
  { name: 'IncrementalAlterConfigsResponse', apiKey: 44, kind: 'response', validVersions: [0, 1], flexibleFrom: 1, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'responses', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'errorCode', type: 'int16', versions: [0, N] },
      { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N] },
      { name: 'resourceType', type: 'int8', versions: [0, N] },
      { name: 'resourceName', type: 'string', versions: [0, N] },
    ] },
  ] },
  { name: 'AlterPartitionReassignmentsRequest', apiKey: 45, kind: 'request', validVersions: [0, 1], flexibleFrom: 0, fields: [
    { name: 'timeoutMs', type: 'int32', versions: [0, N], default: 60000 },
    { name: 'allowReplicationFactorChange', type: 'bool', versions: [1, N], default: true },
    { name: 'topics', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'name', type: 'string', versions: [0, N] },
      { name: 'partitions', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'partitionIndex', type: 'int32', versions: [0, N] },
        { name: 'replicas', type: 'int32', array: true, versions: [0, N], nullable: [0, N], default: null },
      ] },
    ] },
  ] },
  { name: 'AlterPartitionReassignmentsResponse', apiKey: 45, kind: 'response', validVersions: [0, 1], flexibleFrom: 0, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'allowReplicationFactorChange', type: 'bool', versions: [1, N], default: true },
    { name: 'errorCode', type: 'int16', versions: [0, N] },
    { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N] },
    { name: 'responses', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'name', type: 'string', versions: [0, N] },
      { name: 'partitions', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'partitionIndex', type: 'int32', versions: [0, N] },
        { name: 'errorCode', type: 'int16', versions: [0, N] },
        { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N] },
      ] },
    ] },
  ] },
  { name: 'ListPartitionReassignmentsRequest', apiKey: 46, kind: 'request', validVersions: [0, 0], flexibleFrom: 0, fields: [
    { name: 'timeoutMs', type: 'int32', versions: [0, N], default: 60000 },
    { name: 'topics', type: 'struct', array: true, versions: [0, N], nullable: [0, N], default: null, fields: [
      { name: 'name', type: 'string', versions: [0, N] },
      { name: 'partitionIndexes', type: 'int32', array: true, versions: [0, N] },
    ] },
  ] },
  { name: 'ListPartitionReassignmentsResponse', apiKey: 46, kind: 'response', validVersions: [0, 0], flexibleFrom: 0, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'errorCode', type: 'int16', versions: [0, N] },
    { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N] },
    { name: 'topics', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'name', type: 'string', versions: [0, N] },
      { name: 'partitions', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'partitionIndex', type: 'int32', versions: [0, N] },
        { name: 'replicas', type: 'int32', array: true, versions: [0, N] },
        { name: 'addingReplicas', type: 'int32', array: true, versions: [0, N] },
        { name: 'removingReplicas', type: 'int32', array: true, versions: [0, N] },
      ] },
    ] },
  ] },
  { name: 'OffsetDeleteRequest', apiKey: 47, kind: 'request', validVersions: [0, 0], flexibleFrom: -1, fields: [
    { name: 'groupId', type: 'string', versions: [0, N] },
    { name: 'topics', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'name', type: 'string', versions: [0, N] },
      { name: 'partitions', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'partitionIndex', type: 'int32', versions: [0, N] },
      ] },
    ] },
  ] },
  { name: 'OffsetDeleteResponse', apiKey: 47, kind: 'response', validVersions: [0, 0], flexibleFrom: -1, fields: [
    { name: 'errorCode', type: 'int16', versions: [0, N] },
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'topics', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'name', type: 'string', versions: [0, N] },
      { name: 'partitions', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'partitionIndex', type: 'int32', versions: [0, N] },
        { name: 'errorCode', type: 'int16', versions: [0, N] },
      ] },
    ] },
  ] },
  { name: 'DescribeClientQuotasRequest', apiKey: 48, kind: 'request', validVersions: [0, 1], flexibleFrom: 1, fields: [
    { name: 'components', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'entityType', type: 'string', versions: [0, N] },
      { name: 'matchType', type: 'int8', versions: [0, N] },
      { name: 'match', type: 'string', versions: [0, N], nullable: [0, N] },
    ] },
    { name: 'strict', type: 'bool', versions: [0, N] },
  ] },
  { name: 'DescribeClientQuotasResponse', apiKey: 48, kind: 'response', validVersions: [0, 1], flexibleFrom: 1, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'errorCode', type: 'int16', versions: [0, N] },
    { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N] },
    { name: 'entries', type: 'struct', array: true, versions: [0, N], nullable: [0, N], fields: [
      { name: 'entity', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'entityType', type: 'string', versions: [0, N] },
        { name: 'entityName', type: 'string', versions: [0, N], nullable: [0, N] },
      ] },
      { name: 'values', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'key', type: 'string', versions: [0, N] },
        { name: 'value', type: 'float64', versions: [0, N] },
      ] },
    ] },
  ] },
  { name: 'AlterClientQuotasRequest', apiKey: 49, kind: 'request', validVersions: [0, 1], flexibleFrom: 1, fields: [
    { name: 'entries', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'entity', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'entityType', type: 'string', versions: [0, N] },
        { name: 'entityName', type: 'string', versions: [0, N], nullable: [0, N] },
      ] },
      { name: 'ops', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'key', type: 'string', versions: [0, N] },
        { name: 'value', type: 'float64', versions: [0, N] },
        { name: 'remove', type: 'bool', versions: [0, N] },
      ] },
    ] },
    { name: 'validateOnly', type: 'bool', versions: [0, N] },
  ] },
  { name: 'AlterClientQuotasResponse', apiKey: 49, kind: 'response', validVersions: [0, 1], flexibleFrom: 1, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'entries', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'errorCode', type: 'int16', versions: [0, N] },
      { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N] },
      { name: 'entity', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'entityType', type: 'string', versions: [0, N] },
        { name: 'entityName', type: 'string', versions: [0, N], nullable: [0, N] },
      ] },
    ] },
  ] },
  { name: 'DescribeUserScramCredentialsRequest', apiKey: 50, kind: 'request', validVersions: [0, 0], flexibleFrom: 0, fields: [
    { name: 'users', type: 'struct', array: true, versions: [0, N], nullable: [0, N], fields: [
      { name: 'name', type: 'string', versions: [0, N] },
    ] },
  ] },
  { name: 'DescribeUserScramCredentialsResponse', apiKey: 50, kind: 'response', validVersions: [0, 0], flexibleFrom: 0, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'errorCode', type: 'int16', versions: [0, N] },
    { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N] },
    { name: 'results', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'user', type: 'string', versions: [0, N] },
      { name: 'errorCode', type: 'int16', versions: [0, N] },
      { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N] },
      { name: 'credentialInfos', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'mechanism', type: 'int8', versions: [0, N] },
        { name: 'iterations', type: 'int32', versions: [0, N] },
      ] },
    ] },
  ] },
  { name: 'AlterUserScramCredentialsRequest', apiKey: 51, kind: 'request', validVersions: [0, 0], flexibleFrom: 0, fields: [
    { name: 'deletions', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'name', type: 'string', versions: [0, N] },
      { name: 'mechanism', type: 'int8', versions: [0, N] },
    ] },
    { name: 'upsertions', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'name', type: 'string', versions: [0, N] },
      { name: 'mechanism', type: 'int8', versions: [0, N] },
      { name: 'iterations', type: 'int32', versions: [0, N] },
      { name: 'salt', type: 'bytes', versions: [0, N] },
      { name: 'saltedPassword', type: 'bytes', versions: [0, N] },
    ] },
  ] },
  { name: 'AlterUserScramCredentialsResponse', apiKey: 51, kind: 'response', validVersions: [0, 0], flexibleFrom: 0, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'results', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'user', type: 'string', versions: [0, N] },
      { name: 'errorCode', type: 'int16', versions: [0, N] },
      { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N] },
    ] },
  ] },
  { name: 'DescribeQuorumRequest', apiKey: 55, kind: 'request', validVersions: [0, 2], flexibleFrom: 0, fields: [
    { name: 'topics', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'topicName', type: 'string', versions: [0, N] },
      { name: 'partitions', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'partitionIndex', type: 'int32', versions: [0, N] },
      ] },
    ] },
  ] },
  { name: 'DescribeQuorumResponse', apiKey: 55, kind: 'response', validVersions: [0, 2], flexibleFrom: 0, fields: [
    { name: 'errorCode', type: 'int16', versions: [0, N] },
    { name: 'errorMessage', type: 'string', versions: [2, N], nullable: [2, N] },
    { name: 'topics', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'topicName', type: 'string', versions: [0, N] },
      { name: 'partitions', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'partitionIndex', type: 'int32', versions: [0, N] },
        { name: 'errorCode', type: 'int16', versions: [0, N] },
        { name: 'errorMessage', type: 'string', versions: [2, N], nullable: [2, N] },
        { name: 'leaderId', type: 'int32', versions: [0, N] },
        { name: 'leaderEpoch', type: 'int32', versions: [0, N] },
        { name: 'highWatermark', type: 'int64', versions: [0, N] },
        { name: 'currentVoters', type: 'struct', array: true, versions: [0, N], fields: [
          { name: 'replicaId', type: 'int32', versions: [0, N] },
          { name: 'replicaDirectoryId', type: 'uuid', versions: [2, N] },
          { name: 'logEndOffset', type: 'int64', versions: [0, N] },
          { name: 'lastFetchTimestamp', type: 'int64', versions: [1, N], default: -1 },
          { name: 'lastCaughtUpTimestamp', type: 'int64', versions: [1, N], default: -1 },
        ] },
        { name: 'observers', type: 'struct', array: true, versions: [0, N], fields: [
          { name: 'replicaId', type: 'int32', versions: [0, N] },
          { name: 'replicaDirectoryId', type: 'uuid', versions: [2, N] },
          { name: 'logEndOffset', type: 'int64', versions: [0, N] },
          { name: 'lastFetchTimestamp', type: 'int64', versions: [1, N], default: -1 },
          { name: 'lastCaughtUpTimestamp', type: 'int64', versions: [1, N], default: -1 },
        ] },
      ] },
    ] },
    { name: 'nodes', type: 'struct', array: true, versions: [2, N], fields: [
      { name: 'nodeId', type: 'int32', versions: [2, N] },
      { name: 'listeners', type: 'struct', array: true, versions: [2, N], fields: [
        { name: 'name', type: 'string', versions: [2, N] },
        { name: 'host', type: 'string', versions: [2, N] },
        { name: 'port', type: 'uint16', versions: [2, N] },
      ] },
    ] },
  ] },
  { name: 'UpdateFeaturesRequest', apiKey: 57, kind: 'request', validVersions: [0, 2], flexibleFrom: 0, fields: [
    { name: 'timeoutMs', type: 'int32', versions: [0, N], default: 60000 },
    { name: 'featureUpdates', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'feature', type: 'string', versions: [0, N] },
      { name: 'maxVersionLevel', type: 'int16', versions: [0, N] },
      { name: 'allowDowngrade', type: 'bool', versions: [0, 0] },
      { name: 'upgradeType', type: 'int8', versions: [1, N], default: 1 },
    ] },
    { name: 'validateOnly', type: 'bool', versions: [1, N], default: false },
  ] },
  { name: 'UpdateFeaturesResponse', apiKey: 57, kind: 'response', validVersions: [0, 2], flexibleFrom: 0, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'errorCode', type: 'int16', versions: [0, N] },
    { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N] },
    { name: 'results', type: 'struct', array: true, versions: [0, 1], fields: [
      { name: 'feature', type: 'string', versions: [0, N] },
      { name: 'errorCode', type: 'int16', versions: [0, N] },
      { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N] },
    ] },
  ] },
  { name: 'DescribeClusterRequest', apiKey: 60, kind: 'request', validVersions: [0, 2], flexibleFrom: 0, fields: [
    { name: 'includeClusterAuthorizedOperations', type: 'bool', versions: [0, N] },
    { name: 'endpointType', type: 'int8', versions: [1, N], default: 1 },
    { name: 'includeFencedBrokers', type: 'bool', versions: [2, N], default: false },
  ] },
  { name: 'DescribeClusterResponse', apiKey: 60, kind: 'response', validVersions: [0, 2], flexibleFrom: 0, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'errorCode', type: 'int16', versions: [0, N] },
    { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N], default: null },
    { name: 'endpointType', type: 'int8', versions: [1, N], default: 1 },
    { name: 'clusterId', type: 'string', versions: [0, N] },
    { name: 'controllerId', type: 'int32', versions: [0, N], default: -1 },
    { name: 'brokers', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'brokerId', type: 'int32', versions: [0, N] },
      { name: 'host', type: 'string', versions: [0, N] },
      { name: 'port', type: 'int32', versions: [0, N] },
      { name: 'rack', type: 'string', versions: [0, N], nullable: [0, N], default: null },
      { name: 'isFenced', type: 'bool', versions: [2, N], default: false },
    ] },
    { name: 'clusterAuthorizedOperations', type: 'int32', versions: [0, N], default: -2147483648 },
  ] },
  { name: 'DescribeProducersRequest', apiKey: 61, kind: 'request', validVersions: [0, 0], flexibleFrom: 0, fields: [
    { name: 'topics', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'name', type: 'string', versions: [0, N] },
      { name: 'partitionIndexes', type: 'int32', array: true, versions: [0, N] },
    ] },
  ] },
  { name: 'DescribeProducersResponse', apiKey: 61, kind: 'response', validVersions: [0, 0], flexibleFrom: 0, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'topics', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'name', type: 'string', versions: [0, N] },
      { name: 'partitions', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'partitionIndex', type: 'int32', versions: [0, N] },
        { name: 'errorCode', type: 'int16', versions: [0, N] },
        { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N], default: null },
        { name: 'activeProducers', type: 'struct', array: true, versions: [0, N], fields: [
          { name: 'producerId', type: 'int64', versions: [0, N] },
          { name: 'producerEpoch', type: 'int32', versions: [0, N] },
          { name: 'lastSequence', type: 'int32', versions: [0, N], default: -1 },
          { name: 'lastTimestamp', type: 'int64', versions: [0, N], default: -1 },
          { name: 'coordinatorEpoch', type: 'int32', versions: [0, N] },
          { name: 'currentTxnStartOffset', type: 'int64', versions: [0, N], default: -1 },
        ] },
      ] },
    ] },
  ] },
  { name: 'UnregisterBrokerRequest', apiKey: 64, kind: 'request', validVersions: [0, 0], flexibleFrom: 0, fields: [
    { name: 'brokerId', type: 'int32', versions: [0, N] },
  ] },
  { name: 'UnregisterBrokerResponse', apiKey: 64, kind: 'response', validVersions: [0, 0], flexibleFrom: 0, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'errorCode', type: 'int16', versions: [0, N] },
    { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N] },
  ] },
  { name: 'DescribeTransactionsRequest', apiKey: 65, kind: 'request', validVersions: [0, 0], flexibleFrom: 0, fields: [
    { name: 'transactionalIds', type: 'string', array: true, versions: [0, N] },
  ] },
  { name: 'DescribeTransactionsResponse', apiKey: 65, kind: 'response', validVersions: [0, 0], flexibleFrom: 0, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'transactionStates', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'errorCode', type: 'int16', versions: [0, N] },
      { name: 'transactionalId', type: 'string', versions: [0, N] },
      { name: 'transactionState', type: 'string', versions: [0, N] },
      { name: 'transactionTimeoutMs', type: 'int32', versions: [0, N] },
      { name: 'transactionStartTimeMs', type: 'int64', versions: [0, N] },
      { name: 'producerId', type: 'int64', versions: [0, N] },
      { name: 'producerEpoch', type: 'int16', versions: [0, N] },
      { name: 'topics', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'topic', type: 'string', versions: [0, N] },
        { name: 'partitions', type: 'int32', array: true, versions: [0, N] },
      ] },
    ] },
  ] },
  { name: 'ListTransactionsRequest', apiKey: 66, kind: 'request', validVersions: [0, 2], flexibleFrom: 0, fields: [
    { name: 'stateFilters', type: 'string', array: true, versions: [0, N] },
    { name: 'producerIdFilters', type: 'int64', array: true, versions: [0, N] },
    { name: 'durationFilter', type: 'int64', versions: [1, N], default: -1 },
    { name: 'transactionalIdPattern', type: 'string', versions: [2, N], nullable: [2, N], default: null },
  ] },
  { name: 'ListTransactionsResponse', apiKey: 66, kind: 'response', validVersions: [0, 2], flexibleFrom: 0, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'errorCode', type: 'int16', versions: [0, N] },
    { name: 'unknownStateFilters', type: 'string', array: true, versions: [0, N] },
    { name: 'transactionStates', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'transactionalId', type: 'string', versions: [0, N] },
      { name: 'producerId', type: 'int64', versions: [0, N] },
      { name: 'transactionState', type: 'string', versions: [0, N] },
    ] },
  ] },
  { name: 'ConsumerGroupHeartbeatRequest', apiKey: 68, kind: 'request', validVersions: [0, 1], flexibleFrom: 0, fields: [
    { name: 'groupId', type: 'string', versions: [0, N] },
    { name: 'memberId', type: 'string', versions: [0, N] },
    { name: 'memberEpoch', type: 'int32', versions: [0, N] },
    { name: 'instanceId', type: 'string', versions: [0, N], nullable: [0, N], default: null },
    { name: 'rackId', type: 'string', versions: [0, N], nullable: [0, N], default: null },
    { name: 'rebalanceTimeoutMs', type: 'int32', versions: [0, N], default: -1 },
    { name: 'subscribedTopicNames', type: 'string', array: true, versions: [0, N], nullable: [0, N], default: null },
    { name: 'subscribedTopicRegex', type: 'string', versions: [1, N], nullable: [1, N], default: null },
    { name: 'serverAssignor', type: 'string', versions: [0, N], nullable: [0, N], default: null },
    { name: 'topicPartitions', type: 'struct', array: true, versions: [0, N], nullable: [0, N], default: null, fields: [
      { name: 'topicId', type: 'uuid', versions: [0, N] },
      { name: 'partitions', type: 'int32', array: true, versions: [0, N] },
    ] },
  ] },
  { name: 'ConsumerGroupHeartbeatResponse', apiKey: 68, kind: 'response', validVersions: [0, 1], flexibleFrom: 0, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'errorCode', type: 'int16', versions: [0, N] },
    { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N], default: null },
    { name: 'memberId', type: 'string', versions: [0, N], nullable: [0, N], default: null },
    { name: 'memberEpoch', type: 'int32', versions: [0, N] },
    { name: 'heartbeatIntervalMs', type: 'int32', versions: [0, N] },
    { name: 'assignment', type: 'struct', versions: [0, N], nullable: [0, N], default: null, fields: [
      { name: 'topicPartitions', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'topicId', type: 'uuid', versions: [0, N] },
        { name: 'partitions', type: 'int32', array: true, versions: [0, N] },
      ] },
    ] },
  ] },
  { name: 'ConsumerGroupDescribeRequest', apiKey: 69, kind: 'request', validVersions: [0, 1], flexibleFrom: 0, fields: [
    { name: 'groupIds', type: 'string', array: true, versions: [0, N] },
    { name: 'includeAuthorizedOperations', type: 'bool', versions: [0, N] },
  ] },
  { name: 'ConsumerGroupDescribeResponse', apiKey: 69, kind: 'response', validVersions: [0, 1], flexibleFrom: 0, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'groups', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'errorCode', type: 'int16', versions: [0, N] },
      { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N], default: null },
      { name: 'groupId', type: 'string', versions: [0, N] },
      { name: 'groupState', type: 'string', versions: [0, N] },
      { name: 'groupEpoch', type: 'int32', versions: [0, N] },
      { name: 'assignmentEpoch', type: 'int32', versions: [0, N] },
      { name: 'assignorName', type: 'string', versions: [0, N] },
      { name: 'members', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'memberId', type: 'string', versions: [0, N] },
        { name: 'instanceId', type: 'string', versions: [0, N], nullable: [0, N], default: null },
        { name: 'rackId', type: 'string', versions: [0, N], nullable: [0, N], default: null },
        { name: 'memberEpoch', type: 'int32', versions: [0, N] },
        { name: 'clientId', type: 'string', versions: [0, N] },
        { name: 'clientHost', type: 'string', versions: [0, N] },
        { name: 'subscribedTopicNames', type: 'string', array: true, versions: [0, N] },
        { name: 'subscribedTopicRegex', type: 'string', versions: [0, N], nullable: [0, N], default: null },
        { name: 'assignment', type: 'struct', versions: [0, N], fields: [
          { name: 'topicPartitions', type: 'struct', array: true, versions: [0, N], fields: [
            { name: 'topicId', type: 'uuid', versions: [0, N] },
            { name: 'topicName', type: 'string', versions: [0, N] },
            { name: 'partitions', type: 'int32', array: true, versions: [0, N] },
          ] },
        ] },
        { name: 'targetAssignment', type: 'struct', versions: [0, N], fields: [
          { name: 'topicPartitions', type: 'struct', array: true, versions: [0, N], fields: [
            { name: 'topicId', type: 'uuid', versions: [0, N] },
            { name: 'topicName', type: 'string', versions: [0, N] },
            { name: 'partitions', type: 'int32', array: true, versions: [0, N] },
          ] },
        ] },
        { name: 'memberType', type: 'int8', versions: [1, N], default: -1 },
      ] },
      { name: 'authorizedOperations', type: 'int32', versions: [0, N], default: -2147483648 },
    ] },
  ] },
  { name: 'GetTelemetrySubscriptionsRequest', apiKey: 71, kind: 'request', validVersions: [0, 0], flexibleFrom: 0, fields: [
    { name: 'clientInstanceId', type: 'uuid', versions: [0, N] },
  ] },
  { name: 'GetTelemetrySubscriptionsResponse', apiKey: 71, kind: 'response', validVersions: [0, 0], flexibleFrom: 0, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'errorCode', type: 'int16', versions: [0, N] },
    { name: 'clientInstanceId', type: 'uuid', versions: [0, N] },
    { name: 'subscriptionId', type: 'int32', versions: [0, N] },
    { name: 'acceptedCompressionTypes', type: 'int8', array: true, versions: [0, N] },
    { name: 'pushIntervalMs', type: 'int32', versions: [0, N] },
    { name: 'telemetryMaxBytes', type: 'int32', versions: [0, N] },
    { name: 'deltaTemporality', type: 'bool', versions: [0, N] },
    { name: 'requestedMetrics', type: 'string', array: true, versions: [0, N] },
  ] },
  { name: 'PushTelemetryRequest', apiKey: 72, kind: 'request', validVersions: [0, 0], flexibleFrom: 0, fields: [
    { name: 'clientInstanceId', type: 'uuid', versions: [0, N] },
    { name: 'subscriptionId', type: 'int32', versions: [0, N] },
    { name: 'terminating', type: 'bool', versions: [0, N] },
    { name: 'compressionType', type: 'int8', versions: [0, N] },
    { name: 'metrics', type: 'bytes', versions: [0, N] },
  ] },
  { name: 'PushTelemetryResponse', apiKey: 72, kind: 'response', validVersions: [0, 0], flexibleFrom: 0, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'errorCode', type: 'int16', versions: [0, N] },
  ] },
  { name: 'ListClientMetricsResourcesRequest', apiKey: 74, kind: 'request', validVersions: [0, 1], flexibleFrom: 0, fields: [
    { name: 'resourceTypes', type: 'int8', array: true, versions: [1, N] },
  ] },
  { name: 'ListClientMetricsResourcesResponse', apiKey: 74, kind: 'response', validVersions: [0, 1], flexibleFrom: 0, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'errorCode', type: 'int16', versions: [0, N] },
    { name: 'clientMetricsResources', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'name', type: 'string', versions: [0, N] },
      { name: 'resourceType', type: 'int8', versions: [1, N], default: 16 },
    ] },
  ] },
  { name: 'DescribeTopicPartitionsRequest', apiKey: 75, kind: 'request', validVersions: [0, 0], flexibleFrom: 0, fields: [
    { name: 'topics', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'name', type: 'string', versions: [0, N] },
    ] },
    { name: 'responsePartitionLimit', type: 'int32', versions: [0, N], default: 2000 },
    { name: 'cursor', type: 'struct', versions: [0, N], nullable: [0, N], default: null, fields: [
      { name: 'topicName', type: 'string', versions: [0, N] },
      { name: 'partitionIndex', type: 'int32', versions: [0, N] },
    ] },
  ] },
  { name: 'DescribeTopicPartitionsResponse', apiKey: 75, kind: 'response', validVersions: [0, 0], flexibleFrom: 0, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'topics', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'errorCode', type: 'int16', versions: [0, N] },
      { name: 'name', type: 'string', versions: [0, N], nullable: [0, N] },
      { name: 'topicId', type: 'uuid', versions: [0, N] },
      { name: 'isInternal', type: 'bool', versions: [0, N], default: false },
      { name: 'partitions', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'errorCode', type: 'int16', versions: [0, N] },
        { name: 'partitionIndex', type: 'int32', versions: [0, N] },
        { name: 'leaderId', type: 'int32', versions: [0, N] },
        { name: 'leaderEpoch', type: 'int32', versions: [0, N], default: -1 },
        { name: 'replicaNodes', type: 'int32', array: true, versions: [0, N] },
        { name: 'isrNodes', type: 'int32', array: true, versions: [0, N] },
        { name: 'eligibleLeaderReplicas', type: 'int32', array: true, versions: [0, N], nullable: [0, N], default: null },
        { name: 'lastKnownElr', type: 'int32', array: true, versions: [0, N], nullable: [0, N], default: null },
        { name: 'offlineReplicas', type: 'int32', array: true, versions: [0, N] },
      ] },
      { name: 'topicAuthorizedOperations', type: 'int32', versions: [0, N], default: -2147483648 },
    ] },
    { name: 'nextCursor', type: 'struct', versions: [0, N], nullable: [0, N], default: null, fields: [
      { name: 'topicName', type: 'string', versions: [0, N] },
      { name: 'partitionIndex', type: 'int32', versions: [0, N] },
    ] },
  ] },
  { name: 'ShareGroupHeartbeatRequest', apiKey: 76, kind: 'request', validVersions: [1, 1], flexibleFrom: 0, fields: [
    { name: 'groupId', type: 'string', versions: [0, N] },
    { name: 'memberId', type: 'string', versions: [0, N] },
    { name: 'memberEpoch', type: 'int32', versions: [0, N] },
    { name: 'rackId', type: 'string', versions: [0, N], nullable: [0, N], default: null },
    { name: 'subscribedTopicNames', type: 'string', array: true, versions: [0, N], nullable: [0, N], default: null },
  ] },
  { name: 'ShareGroupHeartbeatResponse', apiKey: 76, kind: 'response', validVersions: [1, 1], flexibleFrom: 0, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'errorCode', type: 'int16', versions: [0, N] },
    { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N], default: null },
    { name: 'memberId', type: 'string', versions: [0, N], nullable: [0, N], default: null },
    { name: 'memberEpoch', type: 'int32', versions: [0, N] },
    { name: 'heartbeatIntervalMs', type: 'int32', versions: [0, N] },
    { name: 'assignment', type: 'struct', versions: [0, N], nullable: [0, N], default: null, fields: [
      { name: 'topicPartitions', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'topicId', type: 'uuid', versions: [0, N] },
        { name: 'partitions', type: 'int32', array: true, versions: [0, N] },
      ] },
    ] },
  ] },
  { name: 'ShareGroupDescribeRequest', apiKey: 77, kind: 'request', validVersions: [1, 1], flexibleFrom: 0, fields: [
    { name: 'groupIds', type: 'string', array: true, versions: [0, N] },
    { name: 'includeAuthorizedOperations', type: 'bool', versions: [0, N] },
  ] },
  { name: 'ShareGroupDescribeResponse', apiKey: 77, kind: 'response', validVersions: [1, 1], flexibleFrom: 0, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'groups', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'errorCode', type: 'int16', versions: [0, N] },
      { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N], default: null },
      { name: 'groupId', type: 'string', versions: [0, N] },
      { name: 'groupState', type: 'string', versions: [0, N] },
      { name: 'groupEpoch', type: 'int32', versions: [0, N] },
      { name: 'assignmentEpoch', type: 'int32', versions: [0, N] },
      { name: 'assignorName', type: 'string', versions: [0, N] },
      { name: 'members', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'memberId', type: 'string', versions: [0, N] },
        { name: 'rackId', type: 'string', versions: [0, N], nullable: [0, N], default: null },
        { name: 'memberEpoch', type: 'int32', versions: [0, N] },
        { name: 'clientId', type: 'string', versions: [0, N] },
        { name: 'clientHost', type: 'string', versions: [0, N] },
        { name: 'subscribedTopicNames', type: 'string', array: true, versions: [0, N] },
        { name: 'assignment', type: 'struct', versions: [0, N], fields: [
          { name: 'topicPartitions', type: 'struct', array: true, versions: [0, N], fields: [
            { name: 'topicId', type: 'uuid', versions: [0, N] },
            { name: 'topicName', type: 'string', versions: [0, N] },
            { name: 'partitions', type: 'int32', array: true, versions: [0, N] },
          ] },
        ] },
      ] },
      { name: 'authorizedOperations', type: 'int32', versions: [0, N], default: -2147483648 },
    ] },
  ] },
  { name: 'ShareFetchRequest', apiKey: 78, kind: 'request', validVersions: [1, 2], flexibleFrom: 0, fields: [
    { name: 'groupId', type: 'string', versions: [0, N], nullable: [0, N], default: null },
    { name: 'memberId', type: 'string', versions: [0, N], nullable: [0, N] },
    { name: 'shareSessionEpoch', type: 'int32', versions: [0, N] },
    { name: 'maxWaitMs', type: 'int32', versions: [0, N] },
    { name: 'minBytes', type: 'int32', versions: [0, N] },
    { name: 'maxBytes', type: 'int32', versions: [0, N], default: 2147483647 },
    { name: 'maxRecords', type: 'int32', versions: [1, N] },
    { name: 'batchSize', type: 'int32', versions: [1, N] },
    { name: 'shareAcquireMode', type: 'int8', versions: [2, N], default: 0 },
    { name: 'isRenewAck', type: 'bool', versions: [2, N], default: false },
    { name: 'topics', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'topicId', type: 'uuid', versions: [0, N] },
      { name: 'partitions', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'partitionIndex', type: 'int32', versions: [0, N] },
        { name: 'partitionMaxBytes', type: 'int32', versions: [0, 0] },
        { name: 'acknowledgementBatches', type: 'struct', array: true, versions: [0, N], fields: [
          { name: 'firstOffset', type: 'int64', versions: [0, N] },
          { name: 'lastOffset', type: 'int64', versions: [0, N] },
          { name: 'acknowledgeTypes', type: 'int8', array: true, versions: [0, N] },
        ] },
      ] },
    ] },
    { name: 'forgottenTopicsData', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'topicId', type: 'uuid', versions: [0, N] },
      { name: 'partitions', type: 'int32', array: true, versions: [0, N] },
    ] },
  ] },
  { name: 'ShareFetchResponse', apiKey: 78, kind: 'response', validVersions: [1, 2], flexibleFrom: 0, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'errorCode', type: 'int16', versions: [0, N] },
    { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N], default: null },
    { name: 'acquisitionLockTimeoutMs', type: 'int32', versions: [1, N] },
    { name: 'responses', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'topicId', type: 'uuid', versions: [0, N] },
      { name: 'partitions', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'partitionIndex', type: 'int32', versions: [0, N] },
        { name: 'errorCode', type: 'int16', versions: [0, N] },
        { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N], default: null },
        { name: 'acknowledgeErrorCode', type: 'int16', versions: [0, N] },
        { name: 'acknowledgeErrorMessage', type: 'string', versions: [0, N], nullable: [0, N], default: null },
        { name: 'currentLeader', type: 'struct', versions: [0, N], fields: [
          { name: 'leaderId', type: 'int32', versions: [0, N] },
          { name: 'leaderEpoch', type: 'int32', versions: [0, N] },
        ] },
        { name: 'records', type: 'records', versions: [0, N], nullable: [0, 0] },
        { name: 'acquiredRecords', type: 'struct', array: true, versions: [0, N], fields: [
          { name: 'firstOffset', type: 'int64', versions: [0, N] },
          { name: 'lastOffset', type: 'int64', versions: [0, N] },
          { name: 'deliveryCount', type: 'int16', versions: [0, N] },
        ] },
      ] },
    ] },
    { name: 'nodeEndpoints', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'nodeId', type: 'int32', versions: [0, N] },
      { name: 'host', type: 'string', versions: [0, N] },
      { name: 'port', type: 'int32', versions: [0, N] },
      { name: 'rack', type: 'string', versions: [0, N], nullable: [0, N], default: null },
    ] },
  ] },
  { name: 'ShareAcknowledgeRequest', apiKey: 79, kind: 'request', validVersions: [1, 2], flexibleFrom: 0, fields: [
    { name: 'groupId', type: 'string', versions: [0, N], nullable: [0, N], default: null },
    { name: 'memberId', type: 'string', versions: [0, N], nullable: [0, N] },
    { name: 'shareSessionEpoch', type: 'int32', versions: [0, N] },
    { name: 'isRenewAck', type: 'bool', versions: [2, N], default: false },
    { name: 'topics', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'topicId', type: 'uuid', versions: [0, N] },
      { name: 'partitions', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'partitionIndex', type: 'int32', versions: [0, N] },
        { name: 'acknowledgementBatches', type: 'struct', array: true, versions: [0, N], fields: [
          { name: 'firstOffset', type: 'int64', versions: [0, N] },
          { name: 'lastOffset', type: 'int64', versions: [0, N] },
          { name: 'acknowledgeTypes', type: 'int8', array: true, versions: [0, N] },
        ] },
      ] },
    ] },
  ] },
  { name: 'ShareAcknowledgeResponse', apiKey: 79, kind: 'response', validVersions: [1, 2], flexibleFrom: 0, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'errorCode', type: 'int16', versions: [0, N] },
    { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N], default: null },
    { name: 'acquisitionLockTimeoutMs', type: 'int32', versions: [2, N] },
    { name: 'responses', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'topicId', type: 'uuid', versions: [0, N] },
      { name: 'partitions', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'partitionIndex', type: 'int32', versions: [0, N] },
        { name: 'errorCode', type: 'int16', versions: [0, N] },
        { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N], default: null },
        { name: 'currentLeader', type: 'struct', versions: [0, N], fields: [
          { name: 'leaderId', type: 'int32', versions: [0, N] },
          { name: 'leaderEpoch', type: 'int32', versions: [0, N] },
        ] },
      ] },
    ] },
    { name: 'nodeEndpoints', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'nodeId', type: 'int32', versions: [0, N] },
      { name: 'host', type: 'string', versions: [0, N] },
      { name: 'port', type: 'int32', versions: [0, N] },
      { name: 'rack', type: 'string', versions: [0, N], nullable: [0, N], default: null },
    ] },
  ] },
  { name: 'AddRaftVoterRequest', apiKey: 80, kind: 'request', validVersions: [0, 1], flexibleFrom: 0, fields: [
    { name: 'clusterId', type: 'string', versions: [0, N], nullable: [0, N] },
    { name: 'timeoutMs', type: 'int32', versions: [0, N] },
    { name: 'voterId', type: 'int32', versions: [0, N] },
    { name: 'voterDirectoryId', type: 'uuid', versions: [0, N] },
    { name: 'listeners', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'name', type: 'string', versions: [0, N] },
      { name: 'host', type: 'string', versions: [0, N] },
      { name: 'port', type: 'uint16', versions: [0, N] },
    ] },
    { name: 'ackWhenCommitted', type: 'bool', versions: [1, N], default: true },
  ] },
  { name: 'AddRaftVoterResponse', apiKey: 80, kind: 'response', validVersions: [0, 1], flexibleFrom: 0, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'errorCode', type: 'int16', versions: [0, N] },
    { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N] },
  ] },
  { name: 'RemoveRaftVoterRequest', apiKey: 81, kind: 'request', validVersions: [0, 0], flexibleFrom: 0, fields: [
    { name: 'clusterId', type: 'string', versions: [0, N], nullable: [0, N] },
    { name: 'voterId', type: 'int32', versions: [0, N] },
    { name: 'voterDirectoryId', type: 'uuid', versions: [0, N] },
  ] },
  { name: 'RemoveRaftVoterResponse', apiKey: 81, kind: 'response', validVersions: [0, 0], flexibleFrom: 0, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'errorCode', type: 'int16', versions: [0, N] },
    { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N] },
  ] },
  { name: 'DescribeShareGroupOffsetsRequest', apiKey: 90, kind: 'request', validVersions: [0, 1], flexibleFrom: 0, fields: [
    { name: 'groups', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'groupId', type: 'string', versions: [0, N] },
      { name: 'topics', type: 'struct', array: true, versions: [0, N], nullable: [0, N], fields: [
        { name: 'topicName', type: 'string', versions: [0, N] },
        { name: 'partitions', type: 'int32', array: true, versions: [0, N] },
      ] },
    ] },
  ] },
  { name: 'DescribeShareGroupOffsetsResponse', apiKey: 90, kind: 'response', validVersions: [0, 1], flexibleFrom: 0, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'groups', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'groupId', type: 'string', versions: [0, N] },
      { name: 'topics', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'topicName', type: 'string', versions: [0, N] },
        { name: 'topicId', type: 'uuid', versions: [0, N] },
        { name: 'partitions', type: 'struct', array: true, versions: [0, N], fields: [
          { name: 'partitionIndex', type: 'int32', versions: [0, N] },
          { name: 'startOffset', type: 'int64', versions: [0, N] },
          { name: 'leaderEpoch', type: 'int32', versions: [0, N] },
          { name: 'lag', type: 'int64', versions: [1, N], default: -1 },
          { name: 'errorCode', type: 'int16', versions: [0, N] },
          { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N], default: null },
        ] },
      ] },
      { name: 'errorCode', type: 'int16', versions: [0, N] },
      { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N], default: null },
    ] },
  ] },
  { name: 'AlterShareGroupOffsetsRequest', apiKey: 91, kind: 'request', validVersions: [0, 0], flexibleFrom: 0, fields: [
    { name: 'groupId', type: 'string', versions: [0, N] },
    { name: 'topics', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'topicName', type: 'string', versions: [0, N] },
      { name: 'partitions', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'partitionIndex', type: 'int32', versions: [0, N] },
        { name: 'startOffset', type: 'int64', versions: [0, N] },
      ] },
    ] },
  ] },
  { name: 'AlterShareGroupOffsetsResponse', apiKey: 91, kind: 'response', validVersions: [0, 0], flexibleFrom: 0, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'errorCode', type: 'int16', versions: [0, N] },
    { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N], default: null },
    { name: 'responses', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'topicName', type: 'string', versions: [0, N] },
      { name: 'topicId', type: 'uuid', versions: [0, N] },
      { name: 'partitions', type: 'struct', array: true, versions: [0, N], fields: [
        { name: 'partitionIndex', type: 'int32', versions: [0, N] },
        { name: 'errorCode', type: 'int16', versions: [0, N] },
        { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N], default: null },
      ] },
    ] },
  ] },
  { name: 'DeleteShareGroupOffsetsRequest', apiKey: 92, kind: 'request', validVersions: [0, 0], flexibleFrom: 0, fields: [
    { name: 'groupId', type: 'string', versions: [0, N] },
    { name: 'topics', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'topicName', type: 'string', versions: [0, N] },
    ] },
  ] },
  { name: 'DeleteShareGroupOffsetsResponse', apiKey: 92, kind: 'response', validVersions: [0, 0], flexibleFrom: 0, fields: [
    { name: 'throttleTimeMs', type: 'int32', versions: [0, N] },
    { name: 'errorCode', type: 'int16', versions: [0, N] },
    { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N], default: null },
    { name: 'responses', type: 'struct', array: true, versions: [0, N], fields: [
      { name: 'topicName', type: 'string', versions: [0, N] },
      { name: 'topicId', type: 'uuid', versions: [0, N] },
      { name: 'errorCode', type: 'int16', versions: [0, N] },
      { name: 'errorMessage', type: 'string', versions: [0, N], nullable: [0, N], default: null },
    ] },
  ] },
];

export interface ProduceRequest {
  /** v3+, nullable v3+, default null */
  transactionalId: string | null;
  /** v0+ */
  acks: number;
  /** v0+ */
  timeoutMs: number;
  /** v0+ */
  topicData: ProduceRequestTopicData[];
}

export interface ProduceRequestTopicData {
  /** v0-12 */
  name: string;
  /** v13+, uuid */
  topicId: string;
  /** v0+ */
  partitionData: ProduceRequestPartitionData[];
}

export interface ProduceRequestPartitionData {
  /** v0+ */
  index: number;
  /** v0+, nullable v0+, records */
  records: Buffer | null;
}

export interface ProduceResponse {
  /** v0+ */
  responses: ProduceResponseResponses[];
  /** v1+, default 0 */
  throttleTimeMs: number;
  /** v10+, tagged v10+ (tag 0) */
  nodeEndpoints: ProduceResponseNodeEndpoints[];
}

export interface ProduceResponseResponses {
  /** v0-12 */
  name: string;
  /** v13+, uuid */
  topicId: string;
  /** v0+ */
  partitionResponses: ProduceResponsePartitionResponses[];
}

export interface ProduceResponsePartitionResponses {
  /** v0+ */
  index: number;
  /** v0+ */
  errorCode: number;
  /** v0+, int64 */
  baseOffset: number;
  /** v2+, default -1, int64 */
  logAppendTimeMs: number;
  /** v5+, default -1, int64 */
  logStartOffset: number;
  /** v8+ */
  recordErrors: ProduceResponseRecordErrors[];
  /** v8+, nullable v8+, default null */
  errorMessage: string | null;
  /** v10+, tagged v10+ (tag 0) */
  currentLeader: ProduceResponseCurrentLeader;
}

export interface ProduceResponseRecordErrors {
  /** v8+ */
  batchIndex: number;
  /** v8+, nullable v8+, default null */
  batchIndexErrorMessage: string | null;
}

export interface ProduceResponseCurrentLeader {
  /** v10+, default -1 */
  leaderId: number;
  /** v10+, default -1 */
  leaderEpoch: number;
}

export interface ProduceResponseNodeEndpoints {
  /** v10+ */
  nodeId: number;
  /** v10+ */
  host: string;
  /** v10+ */
  port: number;
  /** v10+, nullable v10+, default null */
  rack: string | null;
}

export interface FetchRequest {
  /** v12+, nullable v12+, tagged v12+ (tag 0), default null */
  clusterId: string | null;
  /** v0-14, default -1 */
  replicaId: number;
  /** v15+, tagged v15+ (tag 1) */
  replicaState: FetchRequestReplicaState;
  /** v0+ */
  maxWaitMs: number;
  /** v0+ */
  minBytes: number;
  /** v3+, default 2147483647 */
  maxBytes: number;
  /** v4+, default 0 */
  isolationLevel: number;
  /** v7+, default 0 */
  sessionId: number;
  /** v7+, default -1 */
  sessionEpoch: number;
  /** v0+ */
  topics: FetchRequestTopics[];
  /** v7+ */
  forgottenTopicsData: FetchRequestForgottenTopicsData[];
  /** v11+, default '' */
  rackId: string;
}

export interface FetchRequestReplicaState {
  /** v15+, default -1 */
  replicaId: number;
  /** v15+, default -1, int64 */
  replicaEpoch: number;
}

export interface FetchRequestTopics {
  /** v0-12 */
  topic: string;
  /** v13+, uuid */
  topicId: string;
  /** v0+ */
  partitions: FetchRequestPartitions[];
}

export interface FetchRequestPartitions {
  /** v0+ */
  partition: number;
  /** v9+, default -1 */
  currentLeaderEpoch: number;
  /** v0+, int64 */
  fetchOffset: number;
  /** v12+, default -1 */
  lastFetchedEpoch: number;
  /** v5+, default -1, int64 */
  logStartOffset: number;
  /** v0+ */
  partitionMaxBytes: number;
  /** v17+, tagged v17+ (tag 0), uuid */
  replicaDirectoryId: string;
}

export interface FetchRequestForgottenTopicsData {
  /** v7-12 */
  topic: string;
  /** v13+, uuid */
  topicId: string;
  /** v7+ */
  partitions: number[];
}

export interface FetchResponse {
  /** v1+ */
  throttleTimeMs: number;
  /** v7+ */
  errorCode: number;
  /** v7+, default 0 */
  sessionId: number;
  /** v0+ */
  responses: FetchResponseResponses[];
  /** v16+, tagged v16+ (tag 0) */
  nodeEndpoints: FetchResponseNodeEndpoints[];
}

export interface FetchResponseResponses {
  /** v0-12 */
  topic: string;
  /** v13+, uuid */
  topicId: string;
  /** v0+ */
  partitions: FetchResponsePartitions[];
}

export interface FetchResponsePartitions {
  /** v0+ */
  partitionIndex: number;
  /** v0+ */
  errorCode: number;
  /** v0+, int64 */
  highWatermark: number;
  /** v4+, default -1, int64 */
  lastStableOffset: number;
  /** v5+, default -1, int64 */
  logStartOffset: number;
  /** v12+, tagged v12+ (tag 0) */
  divergingEpoch: FetchResponseDivergingEpoch;
  /** v12+, tagged v12+ (tag 1) */
  currentLeader: FetchResponseCurrentLeader;
  /** v12+, tagged v12+ (tag 2) */
  snapshotId: FetchResponseSnapshotId;
  /** v4+, nullable v4+ */
  abortedTransactions: FetchResponseAbortedTransactions[] | null;
  /** v11+, default -1 */
  preferredReadReplica: number;
  /** v0+, nullable v0+, records */
  records: Buffer | null;
}

export interface FetchResponseDivergingEpoch {
  /** v12+, default -1 */
  epoch: number;
  /** v12+, default -1, int64 */
  endOffset: number;
}

export interface FetchResponseCurrentLeader {
  /** v12+, default -1 */
  leaderId: number;
  /** v12+, default -1 */
  leaderEpoch: number;
}

export interface FetchResponseSnapshotId {
  /** v0+, default -1, int64 */
  endOffset: number;
  /** v0+, default -1 */
  epoch: number;
}

export interface FetchResponseAbortedTransactions {
  /** v4+, int64 */
  producerId: number;
  /** v4+, int64 */
  firstOffset: number;
}

export interface FetchResponseNodeEndpoints {
  /** v16+ */
  nodeId: number;
  /** v16+ */
  host: string;
  /** v16+ */
  port: number;
  /** v16+, nullable v16+, default null */
  rack: string | null;
}

export interface ListOffsetsRequest {
  /** v0+ */
  replicaId: number;
  /** v2+ */
  isolationLevel: number;
  /** v0+ */
  topics: ListOffsetsRequestTopics[];
  /** v10+ */
  timeoutMs: number;
}

export interface ListOffsetsRequestTopics {
  /** v0+ */
  name: string;
  /** v0+ */
  partitions: ListOffsetsRequestPartitions[];
}

export interface ListOffsetsRequestPartitions {
  /** v0+ */
  partitionIndex: number;
  /** v4+, default -1 */
  currentLeaderEpoch: number;
  /** v0+, int64 */
  timestamp: number;
  /** v0, default 1 */
  maxNumOffsets: number;
}

export interface ListOffsetsResponse {
  /** v2+ */
  throttleTimeMs: number;
  /** v0+ */
  topics: ListOffsetsResponseTopics[];
}

export interface ListOffsetsResponseTopics {
  /** v0+ */
  name: string;
  /** v0+ */
  partitions: ListOffsetsResponsePartitions[];
}

export interface ListOffsetsResponsePartitions {
  /** v0+ */
  partitionIndex: number;
  /** v0+ */
  errorCode: number;
  /** v0, int64 */
  oldStyleOffsets: number[];
  /** v1+, default -1, int64 */
  timestamp: number;
  /** v1+, default -1, int64 */
  offset: number;
  /** v4+, default -1 */
  leaderEpoch: number;
}

export interface MetadataRequest {
  /** v0+, nullable v1+ */
  topics: MetadataRequestTopics[] | null;
  /** v4+, default true */
  allowAutoTopicCreation: boolean;
  /** v8-10 */
  includeClusterAuthorizedOperations: boolean;
  /** v8+ */
  includeTopicAuthorizedOperations: boolean;
}

export interface MetadataRequestTopics {
  /** v10+, uuid */
  topicId: string;
  /** v0+, nullable v10+ */
  name: string | null;
}

export interface MetadataResponse {
  /** v3+ */
  throttleTimeMs: number;
  /** v0+ */
  brokers: MetadataResponseBrokers[];
  /** v2+, nullable v2+, default null */
  clusterId: string | null;
  /** v1+, default -1 */
  controllerId: number;
  /** v0+ */
  topics: MetadataResponseTopics[];
  /** v8-10, default -2147483648 */
  clusterAuthorizedOperations: number;
  /** v13+ */
  errorCode: number;
}

export interface MetadataResponseBrokers {
  /** v0+ */
  nodeId: number;
  /** v0+ */
  host: string;
  /** v0+ */
  port: number;
  /** v1+, nullable v1+, default null */
  rack: string | null;
}

export interface MetadataResponseTopics {
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v12+ */
  name: string | null;
  /** v10+, uuid */
  topicId: string;
  /** v1+, default false */
  isInternal: boolean;
  /** v0+ */
  partitions: MetadataResponsePartitions[];
  /** v8+, default -2147483648 */
  topicAuthorizedOperations: number;
}

export interface MetadataResponsePartitions {
  /** v0+ */
  errorCode: number;
  /** v0+ */
  partitionIndex: number;
  /** v0+ */
  leaderId: number;
  /** v7+, default -1 */
  leaderEpoch: number;
  /** v0+ */
  replicaNodes: number[];
  /** v0+ */
  isrNodes: number[];
  /** v5+ */
  offlineReplicas: number[];
}

export interface OffsetCommitRequest {
  /** v0+ */
  groupId: string;
  /** v1+, default -1 */
  generationIdOrMemberEpoch: number;
  /** v1+ */
  memberId: string;
  /** v7+, nullable v7+, default null */
  groupInstanceId: string | null;
  /** v2-4, default -1, int64 */
  retentionTimeMs: number;
  /** v0+ */
  topics: OffsetCommitRequestTopics[];
}

export interface OffsetCommitRequestTopics {
  /** v0-9 */
  name: string;
  /** v10+, uuid */
  topicId: string;
  /** v0+ */
  partitions: OffsetCommitRequestPartitions[];
}

export interface OffsetCommitRequestPartitions {
  /** v0+ */
  partitionIndex: number;
  /** v0+, int64 */
  committedOffset: number;
  /** v6+, default -1 */
  committedLeaderEpoch: number;
  /** v1, default -1, int64 */
  commitTimestamp: number;
  /** v0+, nullable v0+ */
  committedMetadata: string | null;
}

export interface OffsetCommitResponse {
  /** v3+ */
  throttleTimeMs: number;
  /** v0+ */
  topics: OffsetCommitResponseTopics[];
}

export interface OffsetCommitResponseTopics {
  /** v0-9 */
  name: string;
  /** v10+, uuid */
  topicId: string;
  /** v0+ */
  partitions: OffsetCommitResponsePartitions[];
}

export interface OffsetCommitResponsePartitions {
  /** v0+ */
  partitionIndex: number;
  /** v0+ */
  errorCode: number;
}

export interface OffsetFetchRequest {
  /** v0-7 */
  groupId: string;
  /** v0-7, nullable v2-7 */
  topics: OffsetFetchRequestTopics[] | null;
  /** v8+ */
  groups: OffsetFetchRequestGroups[];
  /** v7+, default false */
  requireStable: boolean;
}

export interface OffsetFetchRequestTopics {
  /** v0-7 */
  name: string;
  /** v0-7 */
  partitionIndexes: number[];
}

export interface OffsetFetchRequestGroups {
  /** v8+ */
  groupId: string;
  /** v9+, nullable v9+, default null */
  memberId: string | null;
  /** v9+, default -1 */
  memberEpoch: number;
  /** v8+, nullable v8+ */
  topics: OffsetFetchRequestGroupsTopics[] | null;
}

export interface OffsetFetchRequestGroupsTopics {
  /** v8-9 */
  name: string;
  /** v10+, uuid */
  topicId: string;
  /** v8+ */
  partitionIndexes: number[];
}

export interface OffsetFetchResponse {
  /** v3+ */
  throttleTimeMs: number;
  /** v0-7 */
  topics: OffsetFetchResponseTopics[];
  /** v2-7, default 0 */
  errorCode: number;
  /** v8+ */
  groups: OffsetFetchResponseGroups[];
}

export interface OffsetFetchResponseTopics {
  /** v0-7 */
  name: string;
  /** v0-7 */
  partitions: OffsetFetchResponseTopicsPartitions[];
}

export interface OffsetFetchResponseTopicsPartitions {
  /** v0-7 */
  partitionIndex: number;
  /** v0-7, int64 */
  committedOffset: number;
  /** v5-7, default -1 */
  committedLeaderEpoch: number;
  /** v0-7, nullable v0-7 */
  metadata: string | null;
  /** v0-7 */
  errorCode: number;
}

export interface OffsetFetchResponseGroups {
  /** v8+ */
  groupId: string;
  /** v8+ */
  topics: OffsetFetchResponseGroupsTopics[];
  /** v8+, default 0 */
  errorCode: number;
}

export interface OffsetFetchResponseGroupsTopics {
  /** v8-9 */
  name: string;
  /** v10+, uuid */
  topicId: string;
  /** v8+ */
  partitions: OffsetFetchResponseGroupsTopicsPartitions[];
}

export interface OffsetFetchResponseGroupsTopicsPartitions {
  /** v8+ */
  partitionIndex: number;
  /** v8+, int64 */
  committedOffset: number;
  /** v8+, default -1 */
  committedLeaderEpoch: number;
  /** v8+, nullable v8+ */
  metadata: string | null;
  /** v8+ */
  errorCode: number;
}

export interface FindCoordinatorRequest {
  /** v0-3 */
  key: string;
  /** v1+, default 0 */
  keyType: number;
  /** v4+ */
  coordinatorKeys: string[];
}

export interface FindCoordinatorResponse {
  /** v1+ */
  throttleTimeMs: number;
  /** v0-3 */
  errorCode: number;
  /** v1-3, nullable v1-3 */
  errorMessage: string | null;
  /** v0-3 */
  nodeId: number;
  /** v0-3 */
  host: string;
  /** v0-3 */
  port: number;
  /** v4+ */
  coordinators: FindCoordinatorResponseCoordinators[];
}

export interface FindCoordinatorResponseCoordinators {
  /** v4+ */
  key: string;
  /** v4+ */
  nodeId: number;
  /** v4+ */
  host: string;
  /** v4+ */
  port: number;
  /** v4+ */
  errorCode: number;
  /** v4+, nullable v4+ */
  errorMessage: string | null;
}

export interface JoinGroupRequest {
  /** v0+ */
  groupId: string;
  /** v0+ */
  sessionTimeoutMs: number;
  /** v1+, default -1 */
  rebalanceTimeoutMs: number;
  /** v0+ */
  memberId: string;
  /** v5+, nullable v5+, default null */
  groupInstanceId: string | null;
  /** v0+ */
  protocolType: string;
  /** v0+ */
  protocols: JoinGroupRequestProtocols[];
  /** v8+, nullable v8+, default null */
  reason: string | null;
}

export interface JoinGroupRequestProtocols {
  /** v0+ */
  name: string;
  /** v0+ */
  metadata: Buffer;
}

export interface JoinGroupResponse {
  /** v2+ */
  throttleTimeMs: number;
  /** v0+ */
  errorCode: number;
  /** v0+, default -1 */
  generationId: number;
  /** v7+, nullable v7+, default null */
  protocolType: string | null;
  /** v0+, nullable v7+ */
  protocolName: string | null;
  /** v0+ */
  leader: string;
  /** v9+, default false */
  skipAssignment: boolean;
  /** v0+ */
  memberId: string;
  /** v0+ */
  members: JoinGroupResponseMembers[];
}

export interface JoinGroupResponseMembers {
  /** v0+ */
  memberId: string;
  /** v5+, nullable v5+, default null */
  groupInstanceId: string | null;
  /** v0+ */
  metadata: Buffer;
}

export interface HeartbeatRequest {
  /** v0+ */
  groupId: string;
  /** v0+ */
  generationId: number;
  /** v0+ */
  memberId: string;
  /** v3+, nullable v3+, default null */
  groupInstanceId: string | null;
}

export interface HeartbeatResponse {
  /** v1+ */
  throttleTimeMs: number;
  /** v0+ */
  errorCode: number;
}

export interface LeaveGroupRequest {
  /** v0+ */
  groupId: string;
  /** v0-2 */
  memberId: string;
  /** v3+ */
  members: LeaveGroupRequestMembers[];
}

export interface LeaveGroupRequestMembers {
  /** v3+ */
  memberId: string;
  /** v3+, nullable v3+, default null */
  groupInstanceId: string | null;
  /** v5+, nullable v5+, default null */
  reason: string | null;
}

export interface LeaveGroupResponse {
  /** v1+ */
  throttleTimeMs: number;
  /** v0+ */
  errorCode: number;
  /** v3+ */
  members: LeaveGroupResponseMembers[];
}

export interface LeaveGroupResponseMembers {
  /** v3+ */
  memberId: string;
  /** v3+, nullable v3+ */
  groupInstanceId: string | null;
  /** v3+ */
  errorCode: number;
}

export interface SyncGroupRequest {
  /** v0+ */
  groupId: string;
  /** v0+ */
  generationId: number;
  /** v0+ */
  memberId: string;
  /** v3+, nullable v3+, default null */
  groupInstanceId: string | null;
  /** v5+, nullable v5+, default null */
  protocolType: string | null;
  /** v5+, nullable v5+, default null */
  protocolName: string | null;
  /** v0+ */
  assignments: SyncGroupRequestAssignments[];
}

export interface SyncGroupRequestAssignments {
  /** v0+ */
  memberId: string;
  /** v0+ */
  assignment: Buffer;
}

export interface SyncGroupResponse {
  /** v1+ */
  throttleTimeMs: number;
  /** v0+ */
  errorCode: number;
  /** v5+, nullable v5+, default null */
  protocolType: string | null;
  /** v5+, nullable v5+, default null */
  protocolName: string | null;
  /** v0+ */
  assignment: Buffer;
}

export interface DescribeGroupsRequest {
  /** v0+ */
  groups: string[];
  /** v3+ */
  includeAuthorizedOperations: boolean;
}

export interface DescribeGroupsResponse {
  /** v1+ */
  throttleTimeMs: number;
  /** v0+ */
  groups: DescribeGroupsResponseGroups[];
}

export interface DescribeGroupsResponseGroups {
  /** v0+ */
  errorCode: number;
  /** v6+, nullable v6+, default null */
  errorMessage: string | null;
  /** v0+ */
  groupId: string;
  /** v0+ */
  groupState: string;
  /** v0+ */
  protocolType: string;
  /** v0+ */
  protocolData: string;
  /** v0+ */
  members: DescribeGroupsResponseMembers[];
  /** v3+, default -2147483648 */
  authorizedOperations: number;
}

export interface DescribeGroupsResponseMembers {
  /** v0+ */
  memberId: string;
  /** v4+, nullable v4+, default null */
  groupInstanceId: string | null;
  /** v0+ */
  clientId: string;
  /** v0+ */
  clientHost: string;
  /** v0+ */
  memberMetadata: Buffer;
  /** v0+ */
  memberAssignment: Buffer;
}

export interface ListGroupsRequest {
  /** v4+ */
  statesFilter: string[];
  /** v5+ */
  typesFilter: string[];
}

export interface ListGroupsResponse {
  /** v1+ */
  throttleTimeMs: number;
  /** v0+ */
  errorCode: number;
  /** v0+ */
  groups: ListGroupsResponseGroups[];
}

export interface ListGroupsResponseGroups {
  /** v0+ */
  groupId: string;
  /** v0+ */
  protocolType: string;
  /** v4+ */
  groupState: string;
  /** v5+ */
  groupType: string;
}

export interface SaslHandshakeRequest {
  /** v0+ */
  mechanism: string;
}

export interface SaslHandshakeResponse {
  /** v0+ */
  errorCode: number;
  /** v0+ */
  mechanisms: string[];
}

export interface ApiVersionsRequest {
  /** v3+ */
  clientSoftwareName: string;
  /** v3+ */
  clientSoftwareVersion: string;
}

export interface ApiVersionsResponse {
  /** v0+ */
  errorCode: number;
  /** v0+ */
  apiKeys: ApiVersionsResponseApiKeys[];
  /** v1+ */
  throttleTimeMs: number;
  /** v3+, tagged v3+ (tag 0) */
  supportedFeatures: ApiVersionsResponseSupportedFeatures[];
  /** v3+, tagged v3+ (tag 1), default -1, int64 */
  finalizedFeaturesEpoch: number;
  /** v3+, tagged v3+ (tag 2) */
  finalizedFeatures: ApiVersionsResponseFinalizedFeatures[];
  /** v3+, tagged v3+ (tag 3), default false */
  zkMigrationReady: boolean;
}

export interface ApiVersionsResponseApiKeys {
  /** v0+ */
  apiKey: number;
  /** v0+ */
  minVersion: number;
  /** v0+ */
  maxVersion: number;
}

export interface ApiVersionsResponseSupportedFeatures {
  /** v3+ */
  name: string;
  /** v3+ */
  minVersion: number;
  /** v3+ */
  maxVersion: number;
}

export interface ApiVersionsResponseFinalizedFeatures {
  /** v3+ */
  name: string;
  /** v3+ */
  maxVersionLevel: number;
  /** v3+ */
  minVersionLevel: number;
}

export interface CreateTopicsRequest {
  /** v0+ */
  topics: CreateTopicsRequestTopics[];
  /** v0+, default 60000 */
  timeoutMs: number;
  /** v1+, default false */
  validateOnly: boolean;
}

export interface CreateTopicsRequestTopics {
  /** v0+ */
  name: string;
  /** v0+ */
  numPartitions: number;
  /** v0+ */
  replicationFactor: number;
  /** v0+ */
  assignments: CreateTopicsRequestAssignments[];
  /** v0+ */
  configs: CreateTopicsRequestConfigs[];
}

export interface CreateTopicsRequestAssignments {
  /** v0+ */
  partitionIndex: number;
  /** v0+ */
  brokerIds: number[];
}

export interface CreateTopicsRequestConfigs {
  /** v0+ */
  name: string;
  /** v0+, nullable v0+ */
  value: string | null;
}

export interface CreateTopicsResponse {
  /** v2+ */
  throttleTimeMs: number;
  /** v0+ */
  topics: CreateTopicsResponseTopics[];
}

export interface CreateTopicsResponseTopics {
  /** v0+ */
  name: string;
  /** v7+, uuid */
  topicId: string;
  /** v0+ */
  errorCode: number;
  /** v1+, nullable v0+ */
  errorMessage: string | null;
  /** v5+, tagged v5+ (tag 0) */
  topicConfigErrorCode: number;
  /** v5+, default -1 */
  numPartitions: number;
  /** v5+, default -1 */
  replicationFactor: number;
  /** v5+, nullable v5+ */
  configs: CreateTopicsResponseConfigs[] | null;
}

export interface CreateTopicsResponseConfigs {
  /** v5+ */
  name: string;
  /** v5+, nullable v5+ */
  value: string | null;
  /** v5+ */
  readOnly: boolean;
  /** v5+, default -1 */
  configSource: number;
  /** v5+ */
  isSensitive: boolean;
}

export interface DeleteTopicsRequest {
  /** v6+ */
  topics: DeleteTopicsRequestTopics[];
  /** v0-5 */
  topicNames: string[];
  /** v0+ */
  timeoutMs: number;
}

export interface DeleteTopicsRequestTopics {
  /** v6+, nullable v6+, default null */
  name: string | null;
  /** v6+, uuid */
  topicId: string;
}

export interface DeleteTopicsResponse {
  /** v1+ */
  throttleTimeMs: number;
  /** v0+ */
  responses: DeleteTopicsResponseResponses[];
}

export interface DeleteTopicsResponseResponses {
  /** v0+, nullable v6+ */
  name: string | null;
  /** v6+, uuid */
  topicId: string;
  /** v0+ */
  errorCode: number;
  /** v5+, nullable v5+, default null */
  errorMessage: string | null;
}

export interface DeleteRecordsRequest {
  /** v0+ */
  topics: DeleteRecordsRequestTopics[];
  /** v0+ */
  timeoutMs: number;
}

export interface DeleteRecordsRequestTopics {
  /** v0+ */
  name: string;
  /** v0+ */
  partitions: DeleteRecordsRequestPartitions[];
}

export interface DeleteRecordsRequestPartitions {
  /** v0+ */
  partitionIndex: number;
  /** v0+, int64 */
  offset: number;
}

export interface DeleteRecordsResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  topics: DeleteRecordsResponseTopics[];
}

export interface DeleteRecordsResponseTopics {
  /** v0+ */
  name: string;
  /** v0+ */
  partitions: DeleteRecordsResponsePartitions[];
}

export interface DeleteRecordsResponsePartitions {
  /** v0+ */
  partitionIndex: number;
  /** v0+, int64 */
  lowWatermark: number;
  /** v0+ */
  errorCode: number;
}

export interface InitProducerIdRequest {
  /** v0+, nullable v0+ */
  transactionalId: string | null;
  /** v0+ */
  transactionTimeoutMs: number;
  /** v3+, default -1, int64 */
  producerId: number;
  /** v3+, default -1 */
  producerEpoch: number;
}

export interface InitProducerIdResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  errorCode: number;
  /** v0+, default -1, int64 */
  producerId: number;
  /** v0+ */
  producerEpoch: number;
}

export interface OffsetForLeaderEpochRequest {
  /** v3+, default -2 */
  replicaId: number;
  /** v0+ */
  topics: OffsetForLeaderEpochRequestTopics[];
}

export interface OffsetForLeaderEpochRequestTopics {
  /** v0+ */
  topic: string;
  /** v0+ */
  partitions: OffsetForLeaderEpochRequestPartitions[];
}

export interface OffsetForLeaderEpochRequestPartitions {
  /** v0+ */
  partition: number;
  /** v2+, default -1 */
  currentLeaderEpoch: number;
  /** v0+ */
  leaderEpoch: number;
}

export interface OffsetForLeaderEpochResponse {
  /** v2+ */
  throttleTimeMs: number;
  /** v0+ */
  topics: OffsetForLeaderEpochResponseTopics[];
}

export interface OffsetForLeaderEpochResponseTopics {
  /** v0+ */
  topic: string;
  /** v0+ */
  partitions: OffsetForLeaderEpochResponsePartitions[];
}

export interface OffsetForLeaderEpochResponsePartitions {
  /** v0+ */
  errorCode: number;
  /** v0+ */
  partition: number;
  /** v1+, default -1 */
  leaderEpoch: number;
  /** v0+, default -1, int64 */
  endOffset: number;
}

export interface AddPartitionsToTxnRequest {
  /** v4+ */
  transactions: AddPartitionsToTxnRequestTransactions[];
  /** v0-3 */
  v3AndBelowTransactionalId: string;
  /** v0-3, int64 */
  v3AndBelowProducerId: number;
  /** v0-3 */
  v3AndBelowProducerEpoch: number;
  /** v0-3 */
  v3AndBelowTopics: AddPartitionsToTxnRequestV3AndBelowTopics[];
}

export interface AddPartitionsToTxnRequestTransactions {
  /** v4+ */
  transactionalId: string;
  /** v4+, int64 */
  producerId: number;
  /** v4+ */
  producerEpoch: number;
  /** v4+, default false */
  verifyOnly: boolean;
  /** v4+ */
  topics: AddPartitionsToTxnRequestTopics[];
}

export interface AddPartitionsToTxnRequestTopics {
  /** v0+ */
  name: string;
  /** v0+ */
  partitions: number[];
}

export interface AddPartitionsToTxnRequestV3AndBelowTopics {
  /** v0+ */
  name: string;
  /** v0+ */
  partitions: number[];
}

export interface AddPartitionsToTxnResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v4+ */
  errorCode: number;
  /** v4+ */
  resultsByTransaction: AddPartitionsToTxnResponseResultsByTransaction[];
  /** v0-3 */
  resultsByTopicV3AndBelow: AddPartitionsToTxnResponseResultsByTopicV3AndBelow[];
}

export interface AddPartitionsToTxnResponseResultsByTransaction {
  /** v4+ */
  transactionalId: string;
  /** v4+ */
  topicResults: AddPartitionsToTxnResponseTopicResults[];
}

export interface AddPartitionsToTxnResponseTopicResults {
  /** v0+ */
  name: string;
  /** v0+ */
  resultsByPartition: AddPartitionsToTxnResponseResultsByTransactionTopicResultsResultsByPartition[];
}

export interface AddPartitionsToTxnResponseResultsByTransactionTopicResultsResultsByPartition {
  /** v0+ */
  partitionIndex: number;
  /** v0+ */
  partitionErrorCode: number;
}

export interface AddPartitionsToTxnResponseResultsByTopicV3AndBelow {
  /** v0+ */
  name: string;
  /** v0+ */
  resultsByPartition: AddPartitionsToTxnResponseResultsByTopicV3AndBelowResultsByPartition[];
}

export interface AddPartitionsToTxnResponseResultsByTopicV3AndBelowResultsByPartition {
  /** v0+ */
  partitionIndex: number;
  /** v0+ */
  partitionErrorCode: number;
}

export interface AddOffsetsToTxnRequest {
  /** v0+ */
  transactionalId: string;
  /** v0+, int64 */
  producerId: number;
  /** v0+ */
  producerEpoch: number;
  /** v0+ */
  groupId: string;
}

export interface AddOffsetsToTxnResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  errorCode: number;
}

export interface EndTxnRequest {
  /** v0+ */
  transactionalId: string;
  /** v0+, int64 */
  producerId: number;
  /** v0+ */
  producerEpoch: number;
  /** v0+ */
  committed: boolean;
}

export interface EndTxnResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  errorCode: number;
  /** v5+, default -1, int64 */
  producerId: number;
  /** v5+, default -1 */
  producerEpoch: number;
}

export interface WriteTxnMarkersRequest {
  /** v0+ */
  markers: WriteTxnMarkersRequestMarkers[];
}

export interface WriteTxnMarkersRequestMarkers {
  /** v0+, int64 */
  producerId: number;
  /** v0+ */
  producerEpoch: number;
  /** v0+ */
  transactionResult: boolean;
  /** v0+ */
  topics: WriteTxnMarkersRequestTopics[];
  /** v0+ */
  coordinatorEpoch: number;
  /** v2+, default 0 */
  transactionVersion: number;
}

export interface WriteTxnMarkersRequestTopics {
  /** v0+ */
  name: string;
  /** v0+ */
  partitionIndexes: number[];
}

export interface WriteTxnMarkersResponse {
  /** v0+ */
  markers: WriteTxnMarkersResponseMarkers[];
}

export interface WriteTxnMarkersResponseMarkers {
  /** v0+, int64 */
  producerId: number;
  /** v0+ */
  topics: WriteTxnMarkersResponseTopics[];
}

export interface WriteTxnMarkersResponseTopics {
  /** v0+ */
  name: string;
  /** v0+ */
  partitions: WriteTxnMarkersResponsePartitions[];
}

export interface WriteTxnMarkersResponsePartitions {
  /** v0+ */
  partitionIndex: number;
  /** v0+ */
  errorCode: number;
}

export interface TxnOffsetCommitRequest {
  /** v0+ */
  transactionalId: string;
  /** v0+ */
  groupId: string;
  /** v0+, int64 */
  producerId: number;
  /** v0+ */
  producerEpoch: number;
  /** v3+, default -1 */
  generationId: number;
  /** v3+, default '' */
  memberId: string;
  /** v3+, nullable v3+, default null */
  groupInstanceId: string | null;
  /** v0+ */
  topics: TxnOffsetCommitRequestTopics[];
}

export interface TxnOffsetCommitRequestTopics {
  /** v0+ */
  name: string;
  /** v0+ */
  partitions: TxnOffsetCommitRequestPartitions[];
}

export interface TxnOffsetCommitRequestPartitions {
  /** v0+ */
  partitionIndex: number;
  /** v0+, int64 */
  committedOffset: number;
  /** v2+, default -1 */
  committedLeaderEpoch: number;
  /** v0+, nullable v0+ */
  committedMetadata: string | null;
}

export interface TxnOffsetCommitResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  topics: TxnOffsetCommitResponseTopics[];
}

export interface TxnOffsetCommitResponseTopics {
  /** v0+ */
  name: string;
  /** v0+ */
  partitions: TxnOffsetCommitResponsePartitions[];
}

export interface TxnOffsetCommitResponsePartitions {
  /** v0+ */
  partitionIndex: number;
  /** v0+ */
  errorCode: number;
}

export interface DescribeAclsRequest {
  /** v0+ */
  resourceTypeFilter: number;
  /** v0+, nullable v0+ */
  resourceNameFilter: string | null;
  /** v1+, default 3 */
  patternTypeFilter: number;
  /** v0+, nullable v0+ */
  principalFilter: string | null;
  /** v0+, nullable v0+ */
  hostFilter: string | null;
  /** v0+ */
  operation: number;
  /** v0+ */
  permissionType: number;
}

export interface DescribeAclsResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+ */
  errorMessage: string | null;
  /** v0+ */
  resources: DescribeAclsResponseResources[];
}

export interface DescribeAclsResponseResources {
  /** v0+ */
  resourceType: number;
  /** v0+ */
  resourceName: string;
  /** v1+, default 3 */
  patternType: number;
  /** v0+ */
  acls: DescribeAclsResponseAcls[];
}

export interface DescribeAclsResponseAcls {
  /** v0+ */
  principal: string;
  /** v0+ */
  host: string;
  /** v0+ */
  operation: number;
  /** v0+ */
  permissionType: number;
}

export interface CreateAclsRequest {
  /** v0+ */
  creations: CreateAclsRequestCreations[];
}

export interface CreateAclsRequestCreations {
  /** v0+ */
  resourceType: number;
  /** v0+ */
  resourceName: string;
  /** v1+, default 3 */
  resourcePatternType: number;
  /** v0+ */
  principal: string;
  /** v0+ */
  host: string;
  /** v0+ */
  operation: number;
  /** v0+ */
  permissionType: number;
}

export interface CreateAclsResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  results: CreateAclsResponseResults[];
}

export interface CreateAclsResponseResults {
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+ */
  errorMessage: string | null;
}

export interface DeleteAclsRequest {
  /** v0+ */
  filters: DeleteAclsRequestFilters[];
}

export interface DeleteAclsRequestFilters {
  /** v0+ */
  resourceTypeFilter: number;
  /** v0+, nullable v0+ */
  resourceNameFilter: string | null;
  /** v1+, default 3 */
  patternTypeFilter: number;
  /** v0+, nullable v0+ */
  principalFilter: string | null;
  /** v0+, nullable v0+ */
  hostFilter: string | null;
  /** v0+ */
  operation: number;
  /** v0+ */
  permissionType: number;
}

export interface DeleteAclsResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  filterResults: DeleteAclsResponseFilterResults[];
}

export interface DeleteAclsResponseFilterResults {
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+ */
  errorMessage: string | null;
  /** v0+ */
  matchingAcls: DeleteAclsResponseMatchingAcls[];
}

export interface DeleteAclsResponseMatchingAcls {
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+ */
  errorMessage: string | null;
  /** v0+ */
  resourceType: number;
  /** v0+ */
  resourceName: string;
  /** v1+, default 3 */
  patternType: number;
  /** v0+ */
  principal: string;
  /** v0+ */
  host: string;
  /** v0+ */
  operation: number;
  /** v0+ */
  permissionType: number;
}

export interface DescribeConfigsRequest {
  /** v0+ */
  resources: DescribeConfigsRequestResources[];
  /** v1+, default false */
  includeSynonyms: boolean;
  /** v3+, default false */
  includeDocumentation: boolean;
}

export interface DescribeConfigsRequestResources {
  /** v0+ */
  resourceType: number;
  /** v0+ */
  resourceName: string;
  /** v0+, nullable v0+ */
  configurationKeys: string[] | null;
}

export interface DescribeConfigsResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  results: DescribeConfigsResponseResults[];
}

export interface DescribeConfigsResponseResults {
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+ */
  errorMessage: string | null;
  /** v0+ */
  resourceType: number;
  /** v0+ */
  resourceName: string;
  /** v0+ */
  configs: DescribeConfigsResponseConfigs[];
}

export interface DescribeConfigsResponseConfigs {
  /** v0+ */
  name: string;
  /** v0+, nullable v0+ */
  value: string | null;
  /** v0+ */
  readOnly: boolean;
  /** v0 */
  isDefault: boolean;
  /** v1+, default -1 */
  configSource: number;
  /** v0+ */
  isSensitive: boolean;
  /** v1+ */
  synonyms: DescribeConfigsResponseSynonyms[];
  /** v3+, default 0 */
  configType: number;
  /** v3+, nullable v0+ */
  documentation: string | null;
}

export interface DescribeConfigsResponseSynonyms {
  /** v1+ */
  name: string;
  /** v1+, nullable v0+ */
  value: string | null;
  /** v1+ */
  source: number;
}

export interface AlterConfigsRequest {
  /** v0+ */
  resources: AlterConfigsRequestResources[];
  /** v0+ */
  validateOnly: boolean;
}

export interface AlterConfigsRequestResources {
  /** v0+ */
  resourceType: number;
  /** v0+ */
  resourceName: string;
  /** v0+ */
  configs: AlterConfigsRequestConfigs[];
}

export interface AlterConfigsRequestConfigs {
  /** v0+ */
  name: string;
  /** v0+, nullable v0+ */
  value: string | null;
}

export interface AlterConfigsResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  responses: AlterConfigsResponseResponses[];
}

export interface AlterConfigsResponseResponses {
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+ */
  errorMessage: string | null;
  /** v0+ */
  resourceType: number;
  /** v0+ */
  resourceName: string;
}

export interface AlterReplicaLogDirsRequest {
  /** v0+ */
  dirs: AlterReplicaLogDirsRequestDirs[];
}

export interface AlterReplicaLogDirsRequestDirs {
  /** v0+ */
  path: string;
  /** v0+ */
  topics: AlterReplicaLogDirsRequestTopics[];
}

export interface AlterReplicaLogDirsRequestTopics {
  /** v0+ */
  name: string;
  /** v0+ */
  partitions: number[];
}

export interface AlterReplicaLogDirsResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  results: AlterReplicaLogDirsResponseResults[];
}

export interface AlterReplicaLogDirsResponseResults {
  /** v0+ */
  topicName: string;
  /** v0+ */
  partitions: AlterReplicaLogDirsResponsePartitions[];
}

export interface AlterReplicaLogDirsResponsePartitions {
  /** v0+ */
  partitionIndex: number;
  /** v0+ */
  errorCode: number;
}

export interface DescribeLogDirsRequest {
  /** v0+, nullable v0+ */
  topics: DescribeLogDirsRequestTopics[] | null;
}

export interface DescribeLogDirsRequestTopics {
  /** v0+ */
  topic: string;
  /** v0+ */
  partitions: number[];
}

export interface DescribeLogDirsResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v3+ */
  errorCode: number;
  /** v0+ */
  results: DescribeLogDirsResponseResults[];
}

export interface DescribeLogDirsResponseResults {
  /** v0+ */
  errorCode: number;
  /** v0+ */
  logDir: string;
  /** v0+ */
  topics: DescribeLogDirsResponseTopics[];
  /** v4+, default -1, int64 */
  totalBytes: number;
  /** v4+, default -1, int64 */
  usableBytes: number;
}

export interface DescribeLogDirsResponseTopics {
  /** v0+ */
  name: string;
  /** v0+ */
  partitions: DescribeLogDirsResponsePartitions[];
}

export interface DescribeLogDirsResponsePartitions {
  /** v0+ */
  partitionIndex: number;
  /** v0+, int64 */
  partitionSize: number;
  /** v0+, int64 */
  offsetLag: number;
  /** v0+ */
  isFutureKey: boolean;
}

export interface SaslAuthenticateRequest {
  /** v0+ */
  authBytes: Buffer;
}

export interface SaslAuthenticateResponse {
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+ */
  errorMessage: string | null;
  /** v0+ */
  authBytes: Buffer;
  /** v1+, default 0, int64 */
  sessionLifetimeMs: number;
}

export interface CreatePartitionsRequest {
  /** v0+ */
  topics: CreatePartitionsRequestTopics[];
  /** v0+ */
  timeoutMs: number;
  /** v0+ */
  validateOnly: boolean;
}

export interface CreatePartitionsRequestTopics {
  /** v0+ */
  name: string;
  /** v0+ */
  count: number;
  /** v0+, nullable v0+ */
  assignments: CreatePartitionsRequestAssignments[] | null;
}

export interface CreatePartitionsRequestAssignments {
  /** v0+ */
  brokerIds: number[];
}

export interface CreatePartitionsResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  results: CreatePartitionsResponseResults[];
}

export interface CreatePartitionsResponseResults {
  /** v0+ */
  name: string;
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+, default null */
  errorMessage: string | null;
}

export interface CreateDelegationTokenRequest {
  /** v3+, nullable v3+ */
  ownerPrincipalType: string | null;
  /** v3+, nullable v3+ */
  ownerPrincipalName: string | null;
  /** v0+ */
  renewers: CreateDelegationTokenRequestRenewers[];
  /** v0+, int64 */
  maxLifetimeMs: number;
}

export interface CreateDelegationTokenRequestRenewers {
  /** v0+ */
  principalType: string;
  /** v0+ */
  principalName: string;
}

export interface CreateDelegationTokenResponse {
  /** v0+ */
  errorCode: number;
  /** v0+ */
  principalType: string;
  /** v0+ */
  principalName: string;
  /** v3+ */
  tokenRequesterPrincipalType: string;
  /** v3+ */
  tokenRequesterPrincipalName: string;
  /** v0+, int64 */
  issueTimestampMs: number;
  /** v0+, int64 */
  expiryTimestampMs: number;
  /** v0+, int64 */
  maxTimestampMs: number;
  /** v0+ */
  tokenId: string;
  /** v0+ */
  hmac: Buffer;
  /** v0+ */
  throttleTimeMs: number;
}

export interface RenewDelegationTokenRequest {
  /** v0+ */
  hmac: Buffer;
  /** v0+, int64 */
  renewPeriodMs: number;
}

export interface RenewDelegationTokenResponse {
  /** v0+ */
  errorCode: number;
  /** v0+, int64 */
  expiryTimestampMs: number;
  /** v0+ */
  throttleTimeMs: number;
}

export interface ExpireDelegationTokenRequest {
  /** v0+ */
  hmac: Buffer;
  /** v0+, int64 */
  expiryTimePeriodMs: number;
}

export interface ExpireDelegationTokenResponse {
  /** v0+ */
  errorCode: number;
  /** v0+, int64 */
  expiryTimestampMs: number;
  /** v0+ */
  throttleTimeMs: number;
}

export interface DescribeDelegationTokenRequest {
  /** v0+, nullable v0+ */
  owners: DescribeDelegationTokenRequestOwners[] | null;
}

export interface DescribeDelegationTokenRequestOwners {
  /** v0+ */
  principalType: string;
  /** v0+ */
  principalName: string;
}

export interface DescribeDelegationTokenResponse {
  /** v0+ */
  errorCode: number;
  /** v0+ */
  tokens: DescribeDelegationTokenResponseTokens[];
  /** v0+ */
  throttleTimeMs: number;
}

export interface DescribeDelegationTokenResponseTokens {
  /** v0+ */
  principalType: string;
  /** v0+ */
  principalName: string;
  /** v3+ */
  tokenRequesterPrincipalType: string;
  /** v3+ */
  tokenRequesterPrincipalName: string;
  /** v0+, int64 */
  issueTimestamp: number;
  /** v0+, int64 */
  expiryTimestamp: number;
  /** v0+, int64 */
  maxTimestamp: number;
  /** v0+ */
  tokenId: string;
  /** v0+ */
  hmac: Buffer;
  /** v0+ */
  renewers: DescribeDelegationTokenResponseRenewers[];
}

export interface DescribeDelegationTokenResponseRenewers {
  /** v0+ */
  principalType: string;
  /** v0+ */
  principalName: string;
}

export interface DeleteGroupsRequest {
  /** v0+ */
  groupsNames: string[];
}

export interface DeleteGroupsResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  results: DeleteGroupsResponseResults[];
}

export interface DeleteGroupsResponseResults {
  /** v0+ */
  groupId: string;
  /** v0+ */
  errorCode: number;
}

export interface ElectLeadersRequest {
  /** v1+ */
  electionType: number;
  /** v0+, nullable v0+ */
  topicPartitions: ElectLeadersRequestTopicPartitions[] | null;
  /** v0+, default 60000 */
  timeoutMs: number;
}

export interface ElectLeadersRequestTopicPartitions {
  /** v0+ */
  topic: string;
  /** v0+ */
  partitions: number[];
}

export interface ElectLeadersResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v1+ */
  errorCode: number;
  /** v0+ */
  replicaElectionResults: ElectLeadersResponseReplicaElectionResults[];
}

export interface ElectLeadersResponseReplicaElectionResults {
  /** v0+ */
  topic: string;
  /** v0+ */
  partitionResult: ElectLeadersResponsePartitionResult[];
}

export interface ElectLeadersResponsePartitionResult {
  /** v0+ */
  partitionId: number;
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+ */
  errorMessage: string | null;
}

export interface IncrementalAlterConfigsRequest {
  /** v0+ */
  resources: IncrementalAlterConfigsRequestResources[];
  /** v0+ */
  validateOnly: boolean;
}

export interface IncrementalAlterConfigsRequestResources {
  /** v0+ */
  resourceType: number;
  /** v0+ */
  resourceName: string;
  /** v0+ */
  configs: IncrementalAlterConfigsRequestConfigs[];
}

export interface IncrementalAlterConfigsRequestConfigs {
  /** v0+ */
  name: string;
  /** v0+ */
  configOperation: number;
  /** v0+, nullable v0+ */
  value: string | null;
}

export interface IncrementalAlterConfigsResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  responses: IncrementalAlterConfigsResponseResponses[];
}

export interface IncrementalAlterConfigsResponseResponses {
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+ */
  errorMessage: string | null;
  /** v0+ */
  resourceType: number;
  /** v0+ */
  resourceName: string;
}

export interface AlterPartitionReassignmentsRequest {
  /** v0+, default 60000 */
  timeoutMs: number;
  /** v1+, default true */
  allowReplicationFactorChange: boolean;
  /** v0+ */
  topics: AlterPartitionReassignmentsRequestTopics[];
}

export interface AlterPartitionReassignmentsRequestTopics {
  /** v0+ */
  name: string;
  /** v0+ */
  partitions: AlterPartitionReassignmentsRequestPartitions[];
}

export interface AlterPartitionReassignmentsRequestPartitions {
  /** v0+ */
  partitionIndex: number;
  /** v0+, nullable v0+, default null */
  replicas: number[] | null;
}

export interface AlterPartitionReassignmentsResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v1+, default true */
  allowReplicationFactorChange: boolean;
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+ */
  errorMessage: string | null;
  /** v0+ */
  responses: AlterPartitionReassignmentsResponseResponses[];
}

export interface AlterPartitionReassignmentsResponseResponses {
  /** v0+ */
  name: string;
  /** v0+ */
  partitions: AlterPartitionReassignmentsResponsePartitions[];
}

export interface AlterPartitionReassignmentsResponsePartitions {
  /** v0+ */
  partitionIndex: number;
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+ */
  errorMessage: string | null;
}

export interface ListPartitionReassignmentsRequest {
  /** v0+, default 60000 */
  timeoutMs: number;
  /** v0+, nullable v0+, default null */
  topics: ListPartitionReassignmentsRequestTopics[] | null;
}

export interface ListPartitionReassignmentsRequestTopics {
  /** v0+ */
  name: string;
  /** v0+ */
  partitionIndexes: number[];
}

export interface ListPartitionReassignmentsResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+ */
  errorMessage: string | null;
  /** v0+ */
  topics: ListPartitionReassignmentsResponseTopics[];
}

export interface ListPartitionReassignmentsResponseTopics {
  /** v0+ */
  name: string;
  /** v0+ */
  partitions: ListPartitionReassignmentsResponsePartitions[];
}

export interface ListPartitionReassignmentsResponsePartitions {
  /** v0+ */
  partitionIndex: number;
  /** v0+ */
  replicas: number[];
  /** v0+ */
  addingReplicas: number[];
  /** v0+ */
  removingReplicas: number[];
}

export interface OffsetDeleteRequest {
  /** v0+ */
  groupId: string;
  /** v0+ */
  topics: OffsetDeleteRequestTopics[];
}

export interface OffsetDeleteRequestTopics {
  /** v0+ */
  name: string;
  /** v0+ */
  partitions: OffsetDeleteRequestPartitions[];
}

export interface OffsetDeleteRequestPartitions {
  /** v0+ */
  partitionIndex: number;
}

export interface OffsetDeleteResponse {
  /** v0+ */
  errorCode: number;
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  topics: OffsetDeleteResponseTopics[];
}

export interface OffsetDeleteResponseTopics {
  /** v0+ */
  name: string;
  /** v0+ */
  partitions: OffsetDeleteResponsePartitions[];
}

export interface OffsetDeleteResponsePartitions {
  /** v0+ */
  partitionIndex: number;
  /** v0+ */
  errorCode: number;
}

export interface DescribeClientQuotasRequest {
  /** v0+ */
  components: DescribeClientQuotasRequestComponents[];
  /** v0+ */
  strict: boolean;
}

export interface DescribeClientQuotasRequestComponents {
  /** v0+ */
  entityType: string;
  /** v0+ */
  matchType: number;
  /** v0+, nullable v0+ */
  match: string | null;
}

export interface DescribeClientQuotasResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+ */
  errorMessage: string | null;
  /** v0+, nullable v0+ */
  entries: DescribeClientQuotasResponseEntries[] | null;
}

export interface DescribeClientQuotasResponseEntries {
  /** v0+ */
  entity: DescribeClientQuotasResponseEntity[];
  /** v0+ */
  values: DescribeClientQuotasResponseValues[];
}

export interface DescribeClientQuotasResponseEntity {
  /** v0+ */
  entityType: string;
  /** v0+, nullable v0+ */
  entityName: string | null;
}

export interface DescribeClientQuotasResponseValues {
  /** v0+ */
  key: string;
  /** v0+ */
  value: number;
}

export interface AlterClientQuotasRequest {
  /** v0+ */
  entries: AlterClientQuotasRequestEntries[];
  /** v0+ */
  validateOnly: boolean;
}

export interface AlterClientQuotasRequestEntries {
  /** v0+ */
  entity: AlterClientQuotasRequestEntity[];
  /** v0+ */
  ops: AlterClientQuotasRequestOps[];
}

export interface AlterClientQuotasRequestEntity {
  /** v0+ */
  entityType: string;
  /** v0+, nullable v0+ */
  entityName: string | null;
}

export interface AlterClientQuotasRequestOps {
  /** v0+ */
  key: string;
  /** v0+ */
  value: number;
  /** v0+ */
  remove: boolean;
}

export interface AlterClientQuotasResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  entries: AlterClientQuotasResponseEntries[];
}

export interface AlterClientQuotasResponseEntries {
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+ */
  errorMessage: string | null;
  /** v0+ */
  entity: AlterClientQuotasResponseEntity[];
}

export interface AlterClientQuotasResponseEntity {
  /** v0+ */
  entityType: string;
  /** v0+, nullable v0+ */
  entityName: string | null;
}

export interface DescribeUserScramCredentialsRequest {
  /** v0+, nullable v0+ */
  users: DescribeUserScramCredentialsRequestUsers[] | null;
}

export interface DescribeUserScramCredentialsRequestUsers {
  /** v0+ */
  name: string;
}

export interface DescribeUserScramCredentialsResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+ */
  errorMessage: string | null;
  /** v0+ */
  results: DescribeUserScramCredentialsResponseResults[];
}

export interface DescribeUserScramCredentialsResponseResults {
  /** v0+ */
  user: string;
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+ */
  errorMessage: string | null;
  /** v0+ */
  credentialInfos: DescribeUserScramCredentialsResponseCredentialInfos[];
}

export interface DescribeUserScramCredentialsResponseCredentialInfos {
  /** v0+ */
  mechanism: number;
  /** v0+ */
  iterations: number;
}

export interface AlterUserScramCredentialsRequest {
  /** v0+ */
  deletions: AlterUserScramCredentialsRequestDeletions[];
  /** v0+ */
  upsertions: AlterUserScramCredentialsRequestUpsertions[];
}

export interface AlterUserScramCredentialsRequestDeletions {
  /** v0+ */
  name: string;
  /** v0+ */
  mechanism: number;
}

export interface AlterUserScramCredentialsRequestUpsertions {
  /** v0+ */
  name: string;
  /** v0+ */
  mechanism: number;
  /** v0+ */
  iterations: number;
  /** v0+ */
  salt: Buffer;
  /** v0+ */
  saltedPassword: Buffer;
}

export interface AlterUserScramCredentialsResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  results: AlterUserScramCredentialsResponseResults[];
}

export interface AlterUserScramCredentialsResponseResults {
  /** v0+ */
  user: string;
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+ */
  errorMessage: string | null;
}

export interface DescribeQuorumRequest {
  /** v0+ */
  topics: DescribeQuorumRequestTopics[];
}

export interface DescribeQuorumRequestTopics {
  /** v0+ */
  topicName: string;
  /** v0+ */
  partitions: DescribeQuorumRequestPartitions[];
}

export interface DescribeQuorumRequestPartitions {
  /** v0+ */
  partitionIndex: number;
}

export interface DescribeQuorumResponse {
  /** v0+ */
  errorCode: number;
  /** v2+, nullable v2+ */
  errorMessage: string | null;
  /** v0+ */
  topics: DescribeQuorumResponseTopics[];
  /** v2+ */
  nodes: DescribeQuorumResponseNodes[];
}

export interface DescribeQuorumResponseTopics {
  /** v0+ */
  topicName: string;
  /** v0+ */
  partitions: DescribeQuorumResponsePartitions[];
}

export interface DescribeQuorumResponsePartitions {
  /** v0+ */
  partitionIndex: number;
  /** v0+ */
  errorCode: number;
  /** v2+, nullable v2+ */
  errorMessage: string | null;
  /** v0+ */
  leaderId: number;
  /** v0+ */
  leaderEpoch: number;
  /** v0+, int64 */
  highWatermark: number;
  /** v0+ */
  currentVoters: DescribeQuorumResponseCurrentVoters[];
  /** v0+ */
  observers: DescribeQuorumResponseObservers[];
}

export interface DescribeQuorumResponseCurrentVoters {
  /** v0+ */
  replicaId: number;
  /** v2+, uuid */
  replicaDirectoryId: string;
  /** v0+, int64 */
  logEndOffset: number;
  /** v1+, default -1, int64 */
  lastFetchTimestamp: number;
  /** v1+, default -1, int64 */
  lastCaughtUpTimestamp: number;
}

export interface DescribeQuorumResponseObservers {
  /** v0+ */
  replicaId: number;
  /** v2+, uuid */
  replicaDirectoryId: string;
  /** v0+, int64 */
  logEndOffset: number;
  /** v1+, default -1, int64 */
  lastFetchTimestamp: number;
  /** v1+, default -1, int64 */
  lastCaughtUpTimestamp: number;
}

export interface DescribeQuorumResponseNodes {
  /** v2+ */
  nodeId: number;
  /** v2+ */
  listeners: DescribeQuorumResponseListeners[];
}

export interface DescribeQuorumResponseListeners {
  /** v2+ */
  name: string;
  /** v2+ */
  host: string;
  /** v2+ */
  port: number;
}

export interface UpdateFeaturesRequest {
  /** v0+, default 60000 */
  timeoutMs: number;
  /** v0+ */
  featureUpdates: UpdateFeaturesRequestFeatureUpdates[];
  /** v1+, default false */
  validateOnly: boolean;
}

export interface UpdateFeaturesRequestFeatureUpdates {
  /** v0+ */
  feature: string;
  /** v0+ */
  maxVersionLevel: number;
  /** v0 */
  allowDowngrade: boolean;
  /** v1+, default 1 */
  upgradeType: number;
}

export interface UpdateFeaturesResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+ */
  errorMessage: string | null;
  /** v0-1 */
  results: UpdateFeaturesResponseResults[];
}

export interface UpdateFeaturesResponseResults {
  /** v0+ */
  feature: string;
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+ */
  errorMessage: string | null;
}

export interface DescribeClusterRequest {
  /** v0+ */
  includeClusterAuthorizedOperations: boolean;
  /** v1+, default 1 */
  endpointType: number;
  /** v2+, default false */
  includeFencedBrokers: boolean;
}

export interface DescribeClusterResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+, default null */
  errorMessage: string | null;
  /** v1+, default 1 */
  endpointType: number;
  /** v0+ */
  clusterId: string;
  /** v0+, default -1 */
  controllerId: number;
  /** v0+ */
  brokers: DescribeClusterResponseBrokers[];
  /** v0+, default -2147483648 */
  clusterAuthorizedOperations: number;
}

export interface DescribeClusterResponseBrokers {
  /** v0+ */
  brokerId: number;
  /** v0+ */
  host: string;
  /** v0+ */
  port: number;
  /** v0+, nullable v0+, default null */
  rack: string | null;
  /** v2+, default false */
  isFenced: boolean;
}

export interface DescribeProducersRequest {
  /** v0+ */
  topics: DescribeProducersRequestTopics[];
}

export interface DescribeProducersRequestTopics {
  /** v0+ */
  name: string;
  /** v0+ */
  partitionIndexes: number[];
}

export interface DescribeProducersResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  topics: DescribeProducersResponseTopics[];
}

export interface DescribeProducersResponseTopics {
  /** v0+ */
  name: string;
  /** v0+ */
  partitions: DescribeProducersResponsePartitions[];
}

export interface DescribeProducersResponsePartitions {
  /** v0+ */
  partitionIndex: number;
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+, default null */
  errorMessage: string | null;
  /** v0+ */
  activeProducers: DescribeProducersResponseActiveProducers[];
}

export interface DescribeProducersResponseActiveProducers {
  /** v0+, int64 */
  producerId: number;
  /** v0+ */
  producerEpoch: number;
  /** v0+, default -1 */
  lastSequence: number;
  /** v0+, default -1, int64 */
  lastTimestamp: number;
  /** v0+ */
  coordinatorEpoch: number;
  /** v0+, default -1, int64 */
  currentTxnStartOffset: number;
}

export interface UnregisterBrokerRequest {
  /** v0+ */
  brokerId: number;
}

export interface UnregisterBrokerResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+ */
  errorMessage: string | null;
}

export interface DescribeTransactionsRequest {
  /** v0+ */
  transactionalIds: string[];
}

export interface DescribeTransactionsResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  transactionStates: DescribeTransactionsResponseTransactionStates[];
}

export interface DescribeTransactionsResponseTransactionStates {
  /** v0+ */
  errorCode: number;
  /** v0+ */
  transactionalId: string;
  /** v0+ */
  transactionState: string;
  /** v0+ */
  transactionTimeoutMs: number;
  /** v0+, int64 */
  transactionStartTimeMs: number;
  /** v0+, int64 */
  producerId: number;
  /** v0+ */
  producerEpoch: number;
  /** v0+ */
  topics: DescribeTransactionsResponseTopics[];
}

export interface DescribeTransactionsResponseTopics {
  /** v0+ */
  topic: string;
  /** v0+ */
  partitions: number[];
}

export interface ListTransactionsRequest {
  /** v0+ */
  stateFilters: string[];
  /** v0+, int64 */
  producerIdFilters: number[];
  /** v1+, default -1, int64 */
  durationFilter: number;
  /** v2+, nullable v2+, default null */
  transactionalIdPattern: string | null;
}

export interface ListTransactionsResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  errorCode: number;
  /** v0+ */
  unknownStateFilters: string[];
  /** v0+ */
  transactionStates: ListTransactionsResponseTransactionStates[];
}

export interface ListTransactionsResponseTransactionStates {
  /** v0+ */
  transactionalId: string;
  /** v0+, int64 */
  producerId: number;
  /** v0+ */
  transactionState: string;
}

export interface ConsumerGroupHeartbeatRequest {
  /** v0+ */
  groupId: string;
  /** v0+ */
  memberId: string;
  /** v0+ */
  memberEpoch: number;
  /** v0+, nullable v0+, default null */
  instanceId: string | null;
  /** v0+, nullable v0+, default null */
  rackId: string | null;
  /** v0+, default -1 */
  rebalanceTimeoutMs: number;
  /** v0+, nullable v0+, default null */
  subscribedTopicNames: string[] | null;
  /** v1+, nullable v1+, default null */
  subscribedTopicRegex: string | null;
  /** v0+, nullable v0+, default null */
  serverAssignor: string | null;
  /** v0+, nullable v0+, default null */
  topicPartitions: ConsumerGroupHeartbeatRequestTopicPartitions[] | null;
}

export interface ConsumerGroupHeartbeatRequestTopicPartitions {
  /** v0+, uuid */
  topicId: string;
  /** v0+ */
  partitions: number[];
}

export interface ConsumerGroupHeartbeatResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+, default null */
  errorMessage: string | null;
  /** v0+, nullable v0+, default null */
  memberId: string | null;
  /** v0+ */
  memberEpoch: number;
  /** v0+ */
  heartbeatIntervalMs: number;
  /** v0+, nullable v0+, default null */
  assignment: ConsumerGroupHeartbeatResponseAssignment | null;
}

export interface ConsumerGroupHeartbeatResponseAssignment {
  /** v0+ */
  topicPartitions: ConsumerGroupHeartbeatResponseTopicPartitions[];
}

export interface ConsumerGroupHeartbeatResponseTopicPartitions {
  /** v0+, uuid */
  topicId: string;
  /** v0+ */
  partitions: number[];
}

export interface ConsumerGroupDescribeRequest {
  /** v0+ */
  groupIds: string[];
  /** v0+ */
  includeAuthorizedOperations: boolean;
}

export interface ConsumerGroupDescribeResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  groups: ConsumerGroupDescribeResponseGroups[];
}

export interface ConsumerGroupDescribeResponseGroups {
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+, default null */
  errorMessage: string | null;
  /** v0+ */
  groupId: string;
  /** v0+ */
  groupState: string;
  /** v0+ */
  groupEpoch: number;
  /** v0+ */
  assignmentEpoch: number;
  /** v0+ */
  assignorName: string;
  /** v0+ */
  members: ConsumerGroupDescribeResponseMembers[];
  /** v0+, default -2147483648 */
  authorizedOperations: number;
}

export interface ConsumerGroupDescribeResponseMembers {
  /** v0+ */
  memberId: string;
  /** v0+, nullable v0+, default null */
  instanceId: string | null;
  /** v0+, nullable v0+, default null */
  rackId: string | null;
  /** v0+ */
  memberEpoch: number;
  /** v0+ */
  clientId: string;
  /** v0+ */
  clientHost: string;
  /** v0+ */
  subscribedTopicNames: string[];
  /** v0+, nullable v0+, default null */
  subscribedTopicRegex: string | null;
  /** v0+ */
  assignment: ConsumerGroupDescribeResponseAssignment;
  /** v0+ */
  targetAssignment: ConsumerGroupDescribeResponseTargetAssignment;
  /** v1+, default -1 */
  memberType: number;
}

export interface ConsumerGroupDescribeResponseAssignment {
  /** v0+ */
  topicPartitions: ConsumerGroupDescribeResponseGroupsMembersAssignmentTopicPartitions[];
}

export interface ConsumerGroupDescribeResponseGroupsMembersAssignmentTopicPartitions {
  /** v0+, uuid */
  topicId: string;
  /** v0+ */
  topicName: string;
  /** v0+ */
  partitions: number[];
}

export interface ConsumerGroupDescribeResponseTargetAssignment {
  /** v0+ */
  topicPartitions: ConsumerGroupDescribeResponseGroupsMembersTargetAssignmentTopicPartitions[];
}

export interface ConsumerGroupDescribeResponseGroupsMembersTargetAssignmentTopicPartitions {
  /** v0+, uuid */
  topicId: string;
  /** v0+ */
  topicName: string;
  /** v0+ */
  partitions: number[];
}

export interface GetTelemetrySubscriptionsRequest {
  /** v0+, uuid */
  clientInstanceId: string;
}

export interface GetTelemetrySubscriptionsResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  errorCode: number;
  /** v0+, uuid */
  clientInstanceId: string;
  /** v0+ */
  subscriptionId: number;
  /** v0+ */
  acceptedCompressionTypes: number[];
  /** v0+ */
  pushIntervalMs: number;
  /** v0+ */
  telemetryMaxBytes: number;
  /** v0+ */
  deltaTemporality: boolean;
  /** v0+ */
  requestedMetrics: string[];
}

export interface PushTelemetryRequest {
  /** v0+, uuid */
  clientInstanceId: string;
  /** v0+ */
  subscriptionId: number;
  /** v0+ */
  terminating: boolean;
  /** v0+ */
  compressionType: number;
  /** v0+ */
  metrics: Buffer;
}

export interface PushTelemetryResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  errorCode: number;
}

export interface ListClientMetricsResourcesRequest {
  /** v1+ */
  resourceTypes: number[];
}

export interface ListClientMetricsResourcesResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  errorCode: number;
  /** v0+ */
  clientMetricsResources: ListClientMetricsResourcesResponseClientMetricsResources[];
}

export interface ListClientMetricsResourcesResponseClientMetricsResources {
  /** v0+ */
  name: string;
  /** v1+, default 16 */
  resourceType: number;
}

export interface DescribeTopicPartitionsRequest {
  /** v0+ */
  topics: DescribeTopicPartitionsRequestTopics[];
  /** v0+, default 2000 */
  responsePartitionLimit: number;
  /** v0+, nullable v0+, default null */
  cursor: DescribeTopicPartitionsRequestCursor | null;
}

export interface DescribeTopicPartitionsRequestTopics {
  /** v0+ */
  name: string;
}

export interface DescribeTopicPartitionsRequestCursor {
  /** v0+ */
  topicName: string;
  /** v0+ */
  partitionIndex: number;
}

export interface DescribeTopicPartitionsResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  topics: DescribeTopicPartitionsResponseTopics[];
  /** v0+, nullable v0+, default null */
  nextCursor: DescribeTopicPartitionsResponseNextCursor | null;
}

export interface DescribeTopicPartitionsResponseTopics {
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+ */
  name: string | null;
  /** v0+, uuid */
  topicId: string;
  /** v0+, default false */
  isInternal: boolean;
  /** v0+ */
  partitions: DescribeTopicPartitionsResponsePartitions[];
  /** v0+, default -2147483648 */
  topicAuthorizedOperations: number;
}

export interface DescribeTopicPartitionsResponsePartitions {
  /** v0+ */
  errorCode: number;
  /** v0+ */
  partitionIndex: number;
  /** v0+ */
  leaderId: number;
  /** v0+, default -1 */
  leaderEpoch: number;
  /** v0+ */
  replicaNodes: number[];
  /** v0+ */
  isrNodes: number[];
  /** v0+, nullable v0+, default null */
  eligibleLeaderReplicas: number[] | null;
  /** v0+, nullable v0+, default null */
  lastKnownElr: number[] | null;
  /** v0+ */
  offlineReplicas: number[];
}

export interface DescribeTopicPartitionsResponseNextCursor {
  /** v0+ */
  topicName: string;
  /** v0+ */
  partitionIndex: number;
}

export interface ShareGroupHeartbeatRequest {
  /** v0+ */
  groupId: string;
  /** v0+ */
  memberId: string;
  /** v0+ */
  memberEpoch: number;
  /** v0+, nullable v0+, default null */
  rackId: string | null;
  /** v0+, nullable v0+, default null */
  subscribedTopicNames: string[] | null;
}

export interface ShareGroupHeartbeatResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+, default null */
  errorMessage: string | null;
  /** v0+, nullable v0+, default null */
  memberId: string | null;
  /** v0+ */
  memberEpoch: number;
  /** v0+ */
  heartbeatIntervalMs: number;
  /** v0+, nullable v0+, default null */
  assignment: ShareGroupHeartbeatResponseAssignment | null;
}

export interface ShareGroupHeartbeatResponseAssignment {
  /** v0+ */
  topicPartitions: ShareGroupHeartbeatResponseTopicPartitions[];
}

export interface ShareGroupHeartbeatResponseTopicPartitions {
  /** v0+, uuid */
  topicId: string;
  /** v0+ */
  partitions: number[];
}

export interface ShareGroupDescribeRequest {
  /** v0+ */
  groupIds: string[];
  /** v0+ */
  includeAuthorizedOperations: boolean;
}

export interface ShareGroupDescribeResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  groups: ShareGroupDescribeResponseGroups[];
}

export interface ShareGroupDescribeResponseGroups {
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+, default null */
  errorMessage: string | null;
  /** v0+ */
  groupId: string;
  /** v0+ */
  groupState: string;
  /** v0+ */
  groupEpoch: number;
  /** v0+ */
  assignmentEpoch: number;
  /** v0+ */
  assignorName: string;
  /** v0+ */
  members: ShareGroupDescribeResponseMembers[];
  /** v0+, default -2147483648 */
  authorizedOperations: number;
}

export interface ShareGroupDescribeResponseMembers {
  /** v0+ */
  memberId: string;
  /** v0+, nullable v0+, default null */
  rackId: string | null;
  /** v0+ */
  memberEpoch: number;
  /** v0+ */
  clientId: string;
  /** v0+ */
  clientHost: string;
  /** v0+ */
  subscribedTopicNames: string[];
  /** v0+ */
  assignment: ShareGroupDescribeResponseAssignment;
}

export interface ShareGroupDescribeResponseAssignment {
  /** v0+ */
  topicPartitions: ShareGroupDescribeResponseTopicPartitions[];
}

export interface ShareGroupDescribeResponseTopicPartitions {
  /** v0+, uuid */
  topicId: string;
  /** v0+ */
  topicName: string;
  /** v0+ */
  partitions: number[];
}

export interface ShareFetchRequest {
  /** v0+, nullable v0+, default null */
  groupId: string | null;
  /** v0+, nullable v0+ */
  memberId: string | null;
  /** v0+ */
  shareSessionEpoch: number;
  /** v0+ */
  maxWaitMs: number;
  /** v0+ */
  minBytes: number;
  /** v0+, default 2147483647 */
  maxBytes: number;
  /** v1+ */
  maxRecords: number;
  /** v1+ */
  batchSize: number;
  /** v2+, default 0 */
  shareAcquireMode: number;
  /** v2+, default false */
  isRenewAck: boolean;
  /** v0+ */
  topics: ShareFetchRequestTopics[];
  /** v0+ */
  forgottenTopicsData: ShareFetchRequestForgottenTopicsData[];
}

export interface ShareFetchRequestTopics {
  /** v0+, uuid */
  topicId: string;
  /** v0+ */
  partitions: ShareFetchRequestPartitions[];
}

export interface ShareFetchRequestPartitions {
  /** v0+ */
  partitionIndex: number;
  /** v0 */
  partitionMaxBytes: number;
  /** v0+ */
  acknowledgementBatches: ShareFetchRequestAcknowledgementBatches[];
}

export interface ShareFetchRequestAcknowledgementBatches {
  /** v0+, int64 */
  firstOffset: number;
  /** v0+, int64 */
  lastOffset: number;
  /** v0+ */
  acknowledgeTypes: number[];
}

export interface ShareFetchRequestForgottenTopicsData {
  /** v0+, uuid */
  topicId: string;
  /** v0+ */
  partitions: number[];
}

export interface ShareFetchResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+, default null */
  errorMessage: string | null;
  /** v1+ */
  acquisitionLockTimeoutMs: number;
  /** v0+ */
  responses: ShareFetchResponseResponses[];
  /** v0+ */
  nodeEndpoints: ShareFetchResponseNodeEndpoints[];
}

export interface ShareFetchResponseResponses {
  /** v0+, uuid */
  topicId: string;
  /** v0+ */
  partitions: ShareFetchResponsePartitions[];
}

export interface ShareFetchResponsePartitions {
  /** v0+ */
  partitionIndex: number;
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+, default null */
  errorMessage: string | null;
  /** v0+ */
  acknowledgeErrorCode: number;
  /** v0+, nullable v0+, default null */
  acknowledgeErrorMessage: string | null;
  /** v0+ */
  currentLeader: ShareFetchResponseCurrentLeader;
  /** v0+, nullable v0, records */
  records: Buffer | null;
  /** v0+ */
  acquiredRecords: ShareFetchResponseAcquiredRecords[];
}

export interface ShareFetchResponseCurrentLeader {
  /** v0+ */
  leaderId: number;
  /** v0+ */
  leaderEpoch: number;
}

export interface ShareFetchResponseAcquiredRecords {
  /** v0+, int64 */
  firstOffset: number;
  /** v0+, int64 */
  lastOffset: number;
  /** v0+ */
  deliveryCount: number;
}

export interface ShareFetchResponseNodeEndpoints {
  /** v0+ */
  nodeId: number;
  /** v0+ */
  host: string;
  /** v0+ */
  port: number;
  /** v0+, nullable v0+, default null */
  rack: string | null;
}

export interface ShareAcknowledgeRequest {
  /** v0+, nullable v0+, default null */
  groupId: string | null;
  /** v0+, nullable v0+ */
  memberId: string | null;
  /** v0+ */
  shareSessionEpoch: number;
  /** v2+, default false */
  isRenewAck: boolean;
  /** v0+ */
  topics: ShareAcknowledgeRequestTopics[];
}

export interface ShareAcknowledgeRequestTopics {
  /** v0+, uuid */
  topicId: string;
  /** v0+ */
  partitions: ShareAcknowledgeRequestPartitions[];
}

export interface ShareAcknowledgeRequestPartitions {
  /** v0+ */
  partitionIndex: number;
  /** v0+ */
  acknowledgementBatches: ShareAcknowledgeRequestAcknowledgementBatches[];
}

export interface ShareAcknowledgeRequestAcknowledgementBatches {
  /** v0+, int64 */
  firstOffset: number;
  /** v0+, int64 */
  lastOffset: number;
  /** v0+ */
  acknowledgeTypes: number[];
}

export interface ShareAcknowledgeResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+, default null */
  errorMessage: string | null;
  /** v2+ */
  acquisitionLockTimeoutMs: number;
  /** v0+ */
  responses: ShareAcknowledgeResponseResponses[];
  /** v0+ */
  nodeEndpoints: ShareAcknowledgeResponseNodeEndpoints[];
}

export interface ShareAcknowledgeResponseResponses {
  /** v0+, uuid */
  topicId: string;
  /** v0+ */
  partitions: ShareAcknowledgeResponsePartitions[];
}

export interface ShareAcknowledgeResponsePartitions {
  /** v0+ */
  partitionIndex: number;
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+, default null */
  errorMessage: string | null;
  /** v0+ */
  currentLeader: ShareAcknowledgeResponseCurrentLeader;
}

export interface ShareAcknowledgeResponseCurrentLeader {
  /** v0+ */
  leaderId: number;
  /** v0+ */
  leaderEpoch: number;
}

export interface ShareAcknowledgeResponseNodeEndpoints {
  /** v0+ */
  nodeId: number;
  /** v0+ */
  host: string;
  /** v0+ */
  port: number;
  /** v0+, nullable v0+, default null */
  rack: string | null;
}

export interface AddRaftVoterRequest {
  /** v0+, nullable v0+ */
  clusterId: string | null;
  /** v0+ */
  timeoutMs: number;
  /** v0+ */
  voterId: number;
  /** v0+, uuid */
  voterDirectoryId: string;
  /** v0+ */
  listeners: AddRaftVoterRequestListeners[];
  /** v1+, default true */
  ackWhenCommitted: boolean;
}

export interface AddRaftVoterRequestListeners {
  /** v0+ */
  name: string;
  /** v0+ */
  host: string;
  /** v0+ */
  port: number;
}

export interface AddRaftVoterResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+ */
  errorMessage: string | null;
}

export interface RemoveRaftVoterRequest {
  /** v0+, nullable v0+ */
  clusterId: string | null;
  /** v0+ */
  voterId: number;
  /** v0+, uuid */
  voterDirectoryId: string;
}

export interface RemoveRaftVoterResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+ */
  errorMessage: string | null;
}

export interface DescribeShareGroupOffsetsRequest {
  /** v0+ */
  groups: DescribeShareGroupOffsetsRequestGroups[];
}

export interface DescribeShareGroupOffsetsRequestGroups {
  /** v0+ */
  groupId: string;
  /** v0+, nullable v0+ */
  topics: DescribeShareGroupOffsetsRequestTopics[] | null;
}

export interface DescribeShareGroupOffsetsRequestTopics {
  /** v0+ */
  topicName: string;
  /** v0+ */
  partitions: number[];
}

export interface DescribeShareGroupOffsetsResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  groups: DescribeShareGroupOffsetsResponseGroups[];
}

export interface DescribeShareGroupOffsetsResponseGroups {
  /** v0+ */
  groupId: string;
  /** v0+ */
  topics: DescribeShareGroupOffsetsResponseTopics[];
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+, default null */
  errorMessage: string | null;
}

export interface DescribeShareGroupOffsetsResponseTopics {
  /** v0+ */
  topicName: string;
  /** v0+, uuid */
  topicId: string;
  /** v0+ */
  partitions: DescribeShareGroupOffsetsResponsePartitions[];
}

export interface DescribeShareGroupOffsetsResponsePartitions {
  /** v0+ */
  partitionIndex: number;
  /** v0+, int64 */
  startOffset: number;
  /** v0+ */
  leaderEpoch: number;
  /** v1+, default -1, int64 */
  lag: number;
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+, default null */
  errorMessage: string | null;
}

export interface AlterShareGroupOffsetsRequest {
  /** v0+ */
  groupId: string;
  /** v0+ */
  topics: AlterShareGroupOffsetsRequestTopics[];
}

export interface AlterShareGroupOffsetsRequestTopics {
  /** v0+ */
  topicName: string;
  /** v0+ */
  partitions: AlterShareGroupOffsetsRequestPartitions[];
}

export interface AlterShareGroupOffsetsRequestPartitions {
  /** v0+ */
  partitionIndex: number;
  /** v0+, int64 */
  startOffset: number;
}

export interface AlterShareGroupOffsetsResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+, default null */
  errorMessage: string | null;
  /** v0+ */
  responses: AlterShareGroupOffsetsResponseResponses[];
}

export interface AlterShareGroupOffsetsResponseResponses {
  /** v0+ */
  topicName: string;
  /** v0+, uuid */
  topicId: string;
  /** v0+ */
  partitions: AlterShareGroupOffsetsResponsePartitions[];
}

export interface AlterShareGroupOffsetsResponsePartitions {
  /** v0+ */
  partitionIndex: number;
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+, default null */
  errorMessage: string | null;
}

export interface DeleteShareGroupOffsetsRequest {
  /** v0+ */
  groupId: string;
  /** v0+ */
  topics: DeleteShareGroupOffsetsRequestTopics[];
}

export interface DeleteShareGroupOffsetsRequestTopics {
  /** v0+ */
  topicName: string;
}

export interface DeleteShareGroupOffsetsResponse {
  /** v0+ */
  throttleTimeMs: number;
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+, default null */
  errorMessage: string | null;
  /** v0+ */
  responses: DeleteShareGroupOffsetsResponseResponses[];
}

export interface DeleteShareGroupOffsetsResponseResponses {
  /** v0+ */
  topicName: string;
  /** v0+, uuid */
  topicId: string;
  /** v0+ */
  errorCode: number;
  /** v0+, nullable v0+, default null */
  errorMessage: string | null;
}

/** Request body type by api key. */
export interface RequestBodies {
  0: ProduceRequest;
  1: FetchRequest;
  2: ListOffsetsRequest;
  3: MetadataRequest;
  8: OffsetCommitRequest;
  9: OffsetFetchRequest;
  10: FindCoordinatorRequest;
  11: JoinGroupRequest;
  12: HeartbeatRequest;
  13: LeaveGroupRequest;
  14: SyncGroupRequest;
  15: DescribeGroupsRequest;
  16: ListGroupsRequest;
  17: SaslHandshakeRequest;
  18: ApiVersionsRequest;
  19: CreateTopicsRequest;
  20: DeleteTopicsRequest;
  21: DeleteRecordsRequest;
  22: InitProducerIdRequest;
  23: OffsetForLeaderEpochRequest;
  24: AddPartitionsToTxnRequest;
  25: AddOffsetsToTxnRequest;
  26: EndTxnRequest;
  27: WriteTxnMarkersRequest;
  28: TxnOffsetCommitRequest;
  29: DescribeAclsRequest;
  30: CreateAclsRequest;
  31: DeleteAclsRequest;
  32: DescribeConfigsRequest;
  33: AlterConfigsRequest;
  34: AlterReplicaLogDirsRequest;
  35: DescribeLogDirsRequest;
  36: SaslAuthenticateRequest;
  37: CreatePartitionsRequest;
  38: CreateDelegationTokenRequest;
  39: RenewDelegationTokenRequest;
  40: ExpireDelegationTokenRequest;
  41: DescribeDelegationTokenRequest;
  42: DeleteGroupsRequest;
  43: ElectLeadersRequest;
  44: IncrementalAlterConfigsRequest;
  45: AlterPartitionReassignmentsRequest;
  46: ListPartitionReassignmentsRequest;
  47: OffsetDeleteRequest;
  48: DescribeClientQuotasRequest;
  49: AlterClientQuotasRequest;
  50: DescribeUserScramCredentialsRequest;
  51: AlterUserScramCredentialsRequest;
  55: DescribeQuorumRequest;
  57: UpdateFeaturesRequest;
  60: DescribeClusterRequest;
  61: DescribeProducersRequest;
  64: UnregisterBrokerRequest;
  65: DescribeTransactionsRequest;
  66: ListTransactionsRequest;
  68: ConsumerGroupHeartbeatRequest;
  69: ConsumerGroupDescribeRequest;
  71: GetTelemetrySubscriptionsRequest;
  72: PushTelemetryRequest;
  74: ListClientMetricsResourcesRequest;
  75: DescribeTopicPartitionsRequest;
  76: ShareGroupHeartbeatRequest;
  77: ShareGroupDescribeRequest;
  78: ShareFetchRequest;
  79: ShareAcknowledgeRequest;
  80: AddRaftVoterRequest;
  81: RemoveRaftVoterRequest;
  90: DescribeShareGroupOffsetsRequest;
  91: AlterShareGroupOffsetsRequest;
  92: DeleteShareGroupOffsetsRequest;
}

/** Response body type by api key. */
export interface ResponseBodies {
  0: ProduceResponse;
  1: FetchResponse;
  2: ListOffsetsResponse;
  3: MetadataResponse;
  8: OffsetCommitResponse;
  9: OffsetFetchResponse;
  10: FindCoordinatorResponse;
  11: JoinGroupResponse;
  12: HeartbeatResponse;
  13: LeaveGroupResponse;
  14: SyncGroupResponse;
  15: DescribeGroupsResponse;
  16: ListGroupsResponse;
  17: SaslHandshakeResponse;
  18: ApiVersionsResponse;
  19: CreateTopicsResponse;
  20: DeleteTopicsResponse;
  21: DeleteRecordsResponse;
  22: InitProducerIdResponse;
  23: OffsetForLeaderEpochResponse;
  24: AddPartitionsToTxnResponse;
  25: AddOffsetsToTxnResponse;
  26: EndTxnResponse;
  27: WriteTxnMarkersResponse;
  28: TxnOffsetCommitResponse;
  29: DescribeAclsResponse;
  30: CreateAclsResponse;
  31: DeleteAclsResponse;
  32: DescribeConfigsResponse;
  33: AlterConfigsResponse;
  34: AlterReplicaLogDirsResponse;
  35: DescribeLogDirsResponse;
  36: SaslAuthenticateResponse;
  37: CreatePartitionsResponse;
  38: CreateDelegationTokenResponse;
  39: RenewDelegationTokenResponse;
  40: ExpireDelegationTokenResponse;
  41: DescribeDelegationTokenResponse;
  42: DeleteGroupsResponse;
  43: ElectLeadersResponse;
  44: IncrementalAlterConfigsResponse;
  45: AlterPartitionReassignmentsResponse;
  46: ListPartitionReassignmentsResponse;
  47: OffsetDeleteResponse;
  48: DescribeClientQuotasResponse;
  49: AlterClientQuotasResponse;
  50: DescribeUserScramCredentialsResponse;
  51: AlterUserScramCredentialsResponse;
  55: DescribeQuorumResponse;
  57: UpdateFeaturesResponse;
  60: DescribeClusterResponse;
  61: DescribeProducersResponse;
  64: UnregisterBrokerResponse;
  65: DescribeTransactionsResponse;
  66: ListTransactionsResponse;
  68: ConsumerGroupHeartbeatResponse;
  69: ConsumerGroupDescribeResponse;
  71: GetTelemetrySubscriptionsResponse;
  72: PushTelemetryResponse;
  74: ListClientMetricsResourcesResponse;
  75: DescribeTopicPartitionsResponse;
  76: ShareGroupHeartbeatResponse;
  77: ShareGroupDescribeResponse;
  78: ShareFetchResponse;
  79: ShareAcknowledgeResponse;
  80: AddRaftVoterResponse;
  81: RemoveRaftVoterResponse;
  90: DescribeShareGroupOffsetsResponse;
  91: AlterShareGroupOffsetsResponse;
  92: DeleteShareGroupOffsetsResponse;
}
