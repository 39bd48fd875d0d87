/**
 * The Kafka API versions this listener implements in full, one contiguous range per API, and the
 * ApiVersions handler that advertises them. A version appears here only when every field of it
 * is honoured (or is one Kafka itself allows a broker to ignore, such as fetch sessions).
 */
import { ErrorCode } from '../../protocol/errors.js';
import { ApiKeys } from '../protocol/index.js';
import type { ApiHandler } from './context.js';
import { featureFields } from './features.js';
import { fetchClusterMetadata } from './metadata.js';

export interface VersionRange {
  min: number;
  max: number;
}

/** api key -> advertised versions. */
export const SUPPORTED_VERSIONS: ReadonlyMap<number, VersionRange> = new Map<number, VersionRange>([
  [0, { min: 3, max: 13 }], // Produce (RecordBatch v2 only: magic 2 starts at v3; v10: KIP-951 leader hints; v11: TRANSACTION_ABORTABLE, older versions INVALID_TXN_STATE; v12: transaction.version 2 adds the partitions; v13: topics by id)
  [1, { min: 4, max: 18 }], // Fetch (v13+: topic ids; v15: replica state; v16: leader endpoints; v17: directory ids, KRaft's only; v18: a follower's high watermark, KIP-1166, tagged and KRaft's only)
  [2, { min: 1, max: 11 }], // ListOffsets (v7 max timestamp, v8 earliest local, v9 latest tiered: none without tiered storage; v10 a timeout for remote lookups, none here; v11 earliest pending upload: none)
  [3, { min: 0, max: 13 }], // Metadata (v10+: topic ids; v12: asked by id; v13: a top-level error code, KIP-1102)
  [8, { min: 0, max: 10 }], // OffsetCommit (v9: KIP-848 member epochs; v10: topics by id)
  [9, { min: 0, max: 10 }], // OffsetFetch (v9: KIP-848 member id and epoch; v10: topics by id)
  [10, { min: 0, max: 6 }], // FindCoordinator (v5: TRANSACTION_ABORTABLE, never answered; v6: share key type 2, INVALID_REQUEST without share groups)
  [11, { min: 0, max: 9 }], // JoinGroup (v8: KIP-800 reason, logged; v9: KIP-814 SkipAssignment for a static leader rejoining)
  [12, { min: 0, max: 4 }], // Heartbeat
  [13, { min: 0, max: 5 }], // LeaveGroup (v5: KIP-800 reason, logged)
  [14, { min: 0, max: 5 }], // SyncGroup
  [15, { min: 0, max: 6 }], // DescribeGroups (v6: KIP-1043, GROUP_ID_NOT_FOUND with a message for a group not there or not classic)
  [16, { min: 0, max: 5 }], // ListGroups (v5: KIP-848 TypesFilter and GroupType, classic or consumer)
  [18, { min: 0, max: 4 }], // ApiVersions (v3+: supported and finalized features, KIP-584; v4: KIP-1022 feature ranges from 0)
  [19, { min: 0, max: 7 }], // CreateTopics (v6: THROTTLING_QUOTA_EXCEEDED, KIP-599; v7: the topic id)
  [20, { min: 0, max: 6 }], // DeleteTopics (v6: by name or topic id)
  [21, { min: 0, max: 2 }], // DeleteRecords
  [22, { min: 0, max: 5 }], // InitProducerId (idempotent and transactional producers; v5: TRANSACTION_ABORTABLE, never answered)
  [23, { min: 0, max: 4 }], // OffsetForLeaderEpoch
  [24, { min: 0, max: 3 }], // AddPartitionsToTxn (v4+: the brokers' batched, verify-only form)
  [25, { min: 0, max: 4 }], // AddOffsetsToTxn
  [26, { min: 0, max: 5 }], // EndTxn (v5: KIP-890 part 2, the epoch bumped by every commit and abort)
  [27, { min: 0, max: 2 }], // WriteTxnMarkers (the admin's abortTransaction; CLUSTER_ACTION; v2: KIP-1228)
  [28, { min: 0, max: 5 }], // TxnOffsetCommit (v4: KIP-890, answered as v3; v5: transaction.version 2 adds the offsets partition)
  [29, { min: 0, max: 3 }], // DescribeAcls
  [30, { min: 0, max: 3 }], // CreateAcls
  [31, { min: 0, max: 3 }], // DeleteAcls
  [32, { min: 0, max: 4 }], // DescribeConfigs (topics and brokers)
  [33, { min: 0, max: 2 }], // AlterConfigs (topics)
  [34, { min: 0, max: 2 }], // AlterReplicaLogDirs (a future log that catches up, then swapped, as Kafka)
  [35, { min: 0, max: 4 }], // DescribeLogDirs (this broker's log dirs)
  [37, { min: 0, max: 3 }], // CreatePartitions
  [38, { min: 0, max: 3 }], // CreateDelegationToken (KIP-48; v3: owner and requester)
  [39, { min: 0, max: 2 }], // RenewDelegationToken
  [40, { min: 0, max: 2 }], // ExpireDelegationToken
  [41, { min: 0, max: 3 }], // DescribeDelegationToken (v3: requester)
  [42, { min: 0, max: 2 }], // DeleteGroups
  [43, { min: 0, max: 2 }], // ElectLeaders
  [44, { min: 0, max: 1 }], // IncrementalAlterConfigs (topics)
  [45, { min: 0, max: 1 }], // AlterPartitionReassignments (v1: KIP-860 AllowReplicationFactorChange)
  [46, { min: 0, max: 0 }], // ListPartitionReassignments
  [47, { min: 0, max: 0 }], // OffsetDelete
  [48, { min: 0, max: 1 }], // DescribeClientQuotas
  [49, { min: 0, max: 1 }], // AlterClientQuotas
  [50, { min: 0, max: 0 }], // DescribeUserScramCredentials
  [51, { min: 0, max: 0 }], // AlterUserScramCredentials
  [55, { min: 0, max: 2 }], // DescribeQuorum (the metadata quorum through the active controller; v2: no controller listeners)
  [57, { min: 0, max: 2 }], // UpdateFeatures (KIP-584, to the active controller; v2: no per-feature results)
  [60, { min: 0, max: 2 }], // DescribeCluster (v1: endpoint type, brokers only; v2: KIP-1073 fenced brokers)
  [61, { min: 0, max: 0 }], // DescribeProducers
  [64, { min: 0, max: 0 }], // UnregisterBroker (to the active controller: a decommissioned broker leaves the registrations)
  [65, { min: 0, max: 0 }], // DescribeTransactions
  [66, { min: 0, max: 2 }], // ListTransactions (v1: the duration filter; v2: KIP-1152 transactional id pattern)
  [68, { min: 0, max: 1 }], // ConsumerGroupHeartbeat (KIP-848; v1: SubscribedTopicRegex, resolved by the coordinator)
  [69, { min: 0, max: 1 }], // ConsumerGroupDescribe (KIP-848; v1: KIP-1099's member type, consumer or classic)
  [74, { min: 0, max: 1 }], // ListConfigResources (v0: ListClientMetricsResources, none here; v1: KIP-1142, groups with configs, brokers, topics)
  [75, { min: 0, max: 0 }], // DescribeTopicPartitions (KIP-966: paged topic descriptions with ids)
  [76, { min: 1, max: 1 }], // ShareGroupHeartbeat (KIP-932; v0, the early-access one, gone as in Kafka 4.1)
  [77, { min: 1, max: 1 }], // ShareGroupDescribe (KIP-932)
  [78, { min: 1, max: 2 }], // ShareFetch (KIP-932; v2: KIP-1206's acquire mode, record limit answered as batch optimized; KIP-1222's renewal refused)
  [79, { min: 1, max: 2 }], // ShareAcknowledge (KIP-932; v2: the acquisition lock timeout; KIP-1222's renewal refused)
  [80, { min: 0, max: 1 }], // AddRaftVoter (KIP-853, to the active controller; v1: KIP-1186's answer once written)
  [81, { min: 0, max: 0 }], // RemoveRaftVoter (KIP-853)
  [90, { min: 0, max: 1 }], // DescribeShareGroupOffsets (KIP-932; v1: each partition's lag, Kafka 4.2)
  [91, { min: 0, max: 0 }], // AlterShareGroupOffsets (KIP-932)
  [92, { min: 0, max: 0 }], // DeleteShareGroupOffsets (KIP-932)
]);

export const API_VERSIONS_KEY = 18;
export const SASL_HANDSHAKE_KEY = 17;
export const SASL_AUTHENTICATE_KEY = 36;

/**
 * Advertised only by listeners with SASL (their connections handle these two themselves):
 * SaslHandshake 0-1 (after v0 the SASL tokens travel as bare size-prefixed frames, after v1 in
 * SaslAuthenticate requests) and SaslAuthenticate 0-2.
 */
export const SASL_VERSIONS: ReadonlyMap<number, VersionRange> = new Map<number, VersionRange>([
  [SASL_HANDSHAKE_KEY, { min: 0, max: 1 }],
  [SASL_AUTHENTICATE_KEY, { min: 0, max: 2 }],
]);

/** KIP-714's client metrics APIs: a broker offers them only with a telemetry receiver, as Kafka only with a ClientTelemetry reporter. */
export const TELEMETRY_VERSIONS: ReadonlyMap<number, VersionRange> = new Map<number, VersionRange>([
  [71, { min: 0, max: 0 }], // GetTelemetrySubscriptions
  [72, { min: 0, max: 0 }], // PushTelemetry
]);

export function isTelemetrySupported(apiKey: number, version: number): boolean {
  const r = TELEMETRY_VERSIONS.get(apiKey);
  return r !== undefined && version >= r.min && version <= r.max;
}

export function isSaslSupported(apiKey: number, version: number): boolean {
  const r = SASL_VERSIONS.get(apiKey);
  return r !== undefined && version >= r.min && version <= r.max;
}

export function isSupported(apiKey: number, version: number): boolean {
  const r = SUPPORTED_VERSIONS.get(apiKey);
  return r !== undefined && version >= r.min && version <= r.max;
}

/** The ApiVersions answer's API ranges; with `sasl`, the SASL APIs too (a SASL listener); with `telemetry`, KIP-714's. */
export function apiVersionsBody(errorCode: number, sasl = false, telemetry = false): { errorCode: number; apiKeys: { apiKey: number; minVersion: number; maxVersion: number }[]; throttleTimeMs: number } {
  const ranges = [...SUPPORTED_VERSIONS, ...(sasl ? SASL_VERSIONS : []), ...(telemetry ? TELEMETRY_VERSIONS : [])].sort(([a], [b]) => a - b);
  const apiKeys = ranges.map(([apiKey, r]) => ({ apiKey, minVersion: r.min, maxVersion: r.max }));
  return { errorCode, apiKeys, throttleTimeMs: 0 };
}

/**
 * Kafka's answer to an ApiVersions version it does not speak (KIP-511), always encoded as v0 so
 * the client can read it: UNSUPPORTED_VERSION with the ApiVersions range alone, for the client
 * to retry with the highest version of it both speak.
 */
export function unsupportedApiVersionsBody(): ReturnType<typeof apiVersionsBody> {
  const r = SUPPORTED_VERSIONS.get(API_VERSIONS_KEY)!;
  return { errorCode: ErrorCode.UNSUPPORTED_VERSION, apiKeys: [{ apiKey: API_VERSIONS_KEY, minVersion: r.min, maxVersion: r.max }], throttleTimeMs: 0 };
}

/** Kafka's ApiVersionsRequest.isValid: v3+ names the client software as letters, digits, '-' and '.', starting and ending with a letter or digit. */
const SOFTWARE_NAME_OR_VERSION = /^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$/;

/**
 * ApiVersions (api key 18, v0-v4): a v3+ request naming its client software badly is
 * INVALID_REQUEST, with no ranges, as Kafka. v3+ carries the features (features.ts), the
 * finalized levels from this broker's metadata.
 */
export const apiVersions: ApiHandler<typeof ApiKeys.ApiVersions> = async (ctx, version, body) => {
  if (version >= 3 && !(SOFTWARE_NAME_OR_VERSION.test(body.clientSoftwareName ?? '') && SOFTWARE_NAME_OR_VERSION.test(body.clientSoftwareVersion ?? ''))) {
    return { errorCode: ErrorCode.INVALID_REQUEST, apiKeys: [], throttleTimeMs: 0 };
  }
  const ranges = apiVersionsBody(ErrorCode.NONE, ctx.sasl === true, (ctx.clientTelemetry ?? null) !== null);
  if (version < 3) return ranges;
  return { ...ranges, ...featureFields(version, await fetchClusterMetadata(ctx, [])) };
};
