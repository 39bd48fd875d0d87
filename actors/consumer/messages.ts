/**
 * Messages the consumer actor accepts, its replies, and the events it reports to a listener.
 */
import type { ClientMetric } from '../../src/client/metrics.js';
import type { TelemetryDescription, TelemetryMsg } from '../../src/client/telemetry-loop.js';
import type { Failure } from '../../src/runtime/types.js';
import type { ReplyToken } from '../../src/runtime/actor-definition.js';
import type { ClusterMetadata } from '../../src/protocol/cluster.js';
import type { FetchResponse } from '../broker/messages.js';
import type {
  ConsumerGroupHeartbeatResponse,
  FindCoordinatorResponse,
  JoinGroupResponse,
  OffsetCommitResponse,
  OffsetFetchResponse,
  SimpleResponse,
  SyncGroupResponse,
} from '../group-coordinator/messages.js';
import type { ListOffsetsResult } from '../partition-replica/messages.js';

export interface TopicPartitionOffset {
  topic: string;
  partition: number;
  offset: number;
}

export interface ConsumedRecord {
  offset: number;
  timestamp: number;
  key: Uint8Array | null;
  value: Uint8Array | null;
  headers: { key: string; value: Uint8Array | null }[];
}

export interface PolledBatch {
  topic: string;
  partition: number;
  /** The partition's end: its high watermark, or with isolation.level read_committed its last stable offset. */
  highWatermark: number;
  records: ConsumedRecord[];
}

export type ConsumerEvent =
  | { kind: 'group.join'; groupId: string; memberId: string; leaderId: string; isLeader: boolean; generationId: number; protocol: string; assignment: TopicPartitionOffset[] }
  | { kind: 'rebalancing'; groupId: string; memberId: string; reason: string }
  | { kind: 'partitions.revoked'; partitions: { topic: string; partition: number }[] }
  | { kind: 'commit'; offsets: TopicPartitionOffset[]; errorCode: number }
  | { kind: 'crash'; errorCode: number; message: string }
  | { kind: 'stop' };

export type ConsumerMsg =
  | { type: 'Subscribe'; topics: string[]; pattern: string | null; patternFlags?: string; fromBeginning?: boolean }
  /** Hands out buffered records; `processed` are the next offsets of records the caller has finished. */
  | { type: 'Poll'; maxRecords: number; timeoutMs: number; processed: TopicPartitionOffset[] }
  /** Kafka's wakeup(): a parked Poll is answered at once, with no records (the caller is stopping). */
  | { type: 'Wakeup' }
  | { type: 'Commit'; offsets: TopicPartitionOffset[] | null }
  | { type: 'Seek'; topic: string; partition: number; offset: number }
  | { type: 'Pause'; partitions: { topic: string; partition: number }[] }
  | { type: 'Resume'; partitions: { topic: string; partition: number }[] }
  | { type: 'Close' }
  | { type: 'DescribeConsumer' }
  /** Kafka's consumer metrics (consumer-metrics.ts). Answered ConsumerMetricsReply. */
  | { type: 'Metrics' }
  // internal
  | { type: 'Tick' }
  | { type: 'MetadataResult'; metadata: ClusterMetadata | null }
  | { type: 'CoordinatorResult'; response: FindCoordinatorResponse | Failure }
  | { type: 'JoinResult'; response: JoinGroupResponse | Failure; epoch: number }
  | { type: 'SyncResult'; response: SyncGroupResponse | Failure; epoch: number }
  | { type: 'HeartbeatResult'; response: SimpleResponse | Failure; epoch: number }
  | { type: 'CommittedResult'; response: OffsetFetchResponse | Failure; epoch: number }
  | { type: 'ResetResult'; topic: string; partition: number; response: ListOffsetsResult | Failure; epoch: number }
  | { type: 'FetchResult'; brokerId: number; response: FetchResponse | Failure; epoch: number }
  | { type: 'CommitResult'; response: OffsetCommitResponse | Failure; offsets: TopicPartitionOffset[]; tokens: ReplyToken[]; sentAt?: number }
  | { type: 'CoordinatorRefound'; response: FindCoordinatorResponse | Failure; epoch: number }
  /** Closing: the final commit failed with a retriable coordinator error; try it again. */
  | { type: 'RetryCloseCommit'; offsets: TopicPartitionOffset[]; findCoordinator: boolean }
  | { type: 'CloseCoordinatorFound'; response: FindCoordinatorResponse | Failure; offsets: TopicPartitionOffset[] }
  | { type: 'LeftGroup' }
  // internal, group.protocol consumer (KIP-848, group-member.ts)
  | { type: 'GroupCoordinatorResult'; response: FindCoordinatorResponse | Failure }
  /** The answer to ConsumerGroupHeartbeat number `seq`. */
  | { type: 'GroupHeartbeatResult'; seq: number; response: ConsumerGroupHeartbeatResponse | Failure }
  /** The commit before reconciliation `reconciliationId` revokes partitions, sent with `memberEpoch`. */
  | { type: 'RevocationCommitResult'; reconciliationId: number; memberEpoch: number; response: OffsetCommitResponse | Failure; offsets: TopicPartitionOffset[] }
  /** Committed offsets of partitions a reconciliation added. */
  | { type: 'AssignedCommittedResult'; epoch: number; partitions: { topic: string; partition: number }[]; response: OffsetFetchResponse | Failure }
  /** enable.metrics.push: the push loop's timers, the brokers' answers, and clientInstanceId's GetClientInstanceId (KIP-714, src/client/telemetry-loop.ts). */
  | TelemetryMsg;

export interface PollResult {
  type: 'PollResult';
  errorCode: number;
  errorMessage?: string;
  batches: PolledBatch[];
}

export type ConsumerPhase = 'Idle' | 'FindingCoordinator' | 'Joining' | 'Syncing' | 'Stable' | 'Closed';

export interface ConsumerDescription {
  type: 'ConsumerDescription';
  phase: ConsumerPhase;
  memberId: string;
  /** The generation; with group.protocol consumer the member epoch (-1 while not in the group). */
  generationId: number;
  /** With group.protocol consumer: the member's state as Kafka names it (STABLE, RECONCILING, ...). */
  memberState?: string;
  /** `readReplica`: the broker fetched from instead of the leader (client.rack, KIP-392), or null. */
  assignment: { topic: string; partition: number; position: number | null; paused: boolean; readReplica: number | null }[];
  /** enable.metrics.push: where its telemetry stands (KIP-714); null without. */
  telemetry: TelemetryDescription | null;
}

export interface ConsumerMetricsReply {
  type: 'ConsumerMetrics';
  metrics: ClientMetric[];
}
