/**
 * Messages the share consumer actor accepts and its replies (KIP-932, samsa's KafkaShareConsumer).
 * Every reply carries `errorCode`; acknowledgement outcomes carry their own, per partition.
 */
import type { ClientMetric } from '../../src/client/metrics.js';
import type { TelemetryDescription, TelemetryMsg } from '../../src/client/telemetry-loop.js';
import type { Failure } from '../../src/runtime/types.js';
import type { ClusterMetadata } from '../../src/protocol/cluster.js';
import type { FindCoordinatorResponse, ShareGroupHeartbeatResponse } from '../group-coordinator/messages.js';
import type { ShareAcknowledgeResult, ShareFetchResult } from '../share-partition/messages.js';

/** A record acquired for this member, as a poll hands it out. */
export interface ShareConsumedRecord {
  topic: string;
  partition: number;
  offset: number;
  timestamp: number;
  key: Uint8Array | null;
  value: Uint8Array | null;
  headers: { key: string; value: Uint8Array | null }[];
  /** How many times it has been delivered, this one included (1 the first time). */
  deliveryCount: number;
}

/** The application's acknowledgements of one partition: `types[i]` (AcknowledgeType) for `offsets[i]`. */
export interface PartitionAcknowledgements {
  topic: string;
  partition: number;
  offsets: number[];
  types: number[];
}

/** How the acknowledgements of one partition went (errorCode 0: applied). */
export interface AcknowledgementOutcome {
  topic: string;
  topicId: string;
  partition: number;
  offsets: number[];
  errorCode: number;
  errorMessage: string | null;
}

/** Acknowledgements of a partition on their way to a broker (in a ShareFetch or ShareAcknowledge). */
export interface SentAcknowledgements {
  topic: string;
  topicId: string;
  partition: number;
  offsets: number[];
}

export type ShareConsumerMsg =
  /** The topics to be subscribed to (replaces the subscription; joins the group when not in it). */
  | { type: 'Subscribe'; topics: string[] }
  /** Sends `acknowledgements`, gives back what the member holds and leaves the group (epoch -1). */
  | { type: 'Unsubscribe'; acknowledgements: PartitionAcknowledgements[] }
  /**
   * Hands out up to maxRecords acquired records, waiting up to timeoutMs for some;
   * `acknowledgements` (of the records the last poll returned) go with the next fetches.
   * `renewals`: the application has records being renewed (AcknowledgeType.Renew): this poll
   * hands out no records, its acknowledgements go at once in a ShareAcknowledge (as Kafka's
   * renewing ShareFetch, which only acknowledges), and it is answered once no acknowledgement is
   * out (their outcomes in `completed`) or at timeoutMs. Every Poll tells the member the
   * application is polling (max.poll.interval.ms); one after the member left for not polling
   * makes it join again.
   */
  | { type: 'Poll'; maxRecords: number; timeoutMs: number; acknowledgements: PartitionAcknowledgements[]; renewals: boolean }
  /** commitSync (wait: answered once the brokers have answered, within timeoutMs) or commitAsync (answered at once). */
  | { type: 'Commit'; acknowledgements: PartitionAcknowledgements[]; wait: boolean; timeoutMs: number }
  /** A parked Poll is answered at once, with no records. */
  | { type: 'Wakeup' }
  /** Sends `acknowledgements`, waits for the fetches out, leaves the group (epoch -1) and gives back every record held. */
  | { type: 'Close'; acknowledgements: PartitionAcknowledgements[] }
  | { type: 'DescribeShareConsumer' }
  /** Kafka's share consumer metrics (share-consumer-metrics.ts). Answered ShareConsumerMetricsReply. */
  | { type: 'Metrics' }
  // internal
  | { type: 'Tick' }
  | { type: 'MetadataResult'; metadata: ClusterMetadata | null }
  | { type: 'CoordinatorResult'; response: FindCoordinatorResponse | Failure }
  // `sentAt` (the actor's clock): when the request went out, for the metrics
  /** The answer to ShareGroupHeartbeat `seq`, sent with `memberEpoch` and (null: unchanged) `topics`. */
  | { type: 'HeartbeatResult'; seq: number; memberEpoch: number; topics: string[] | null; sentAt: number; response: ShareGroupHeartbeatResponse | Failure }
  /** The answer to a leave (epoch -1); `stale`: the leave of a member whose application stopped polling (its answer is of no use). */
  | { type: 'LeaveResult'; stale: boolean; sentAt: number; response: ShareGroupHeartbeatResponse | Failure }
  /** The answer of broker `brokerId`'s share partition manager to our ShareFetch of `fetched` (partition keys). */
  | { type: 'ShareFetchDone'; brokerId: number; fetched: string[]; acknowledgements: SentAcknowledgements[]; sentAt: number; response: ShareFetchResult | Failure }
  /** The answer to a ShareAcknowledge; `commitId` names the commitSync (or close) waiting for it; `renew`: it renewed some locks. */
  | { type: 'ShareAcknowledgeDone'; brokerId: number; commitId: number | null; renew: boolean; acknowledgements: SentAcknowledgements[]; sentAt: number; response: ShareAcknowledgeResult | Failure }
  /** enable.metrics.push: the push loop's timers, the brokers' answers, and clientInstanceId's GetClientInstanceId (KIP-714, src/client/telemetry-loop.ts). */
  | TelemetryMsg;

export interface SharePollResult {
  type: 'SharePollResult';
  errorCode: number;
  errorMessage?: string;
  records: ShareConsumedRecord[];
  /** The acquisition lock timeout the last fetch answered (null before any). */
  acquisitionLockTimeoutMs: number | null;
  /** Acknowledgements that completed since the last answer (for the acknowledgement commit callback). */
  completed: AcknowledgementOutcome[];
}

export interface ShareCommitResult {
  type: 'ShareCommitResult';
  errorCode: number;
  errorMessage?: string;
  /** commitSync: how each partition's acknowledgements went. */
  results: AcknowledgementOutcome[];
  completed: AcknowledgementOutcome[];
}

export interface ShareConsumerMetricsReply {
  type: 'ShareConsumerMetrics';
  metrics: ClientMetric[];
}

/** The answer to Subscribe, Unsubscribe and Close. */
export interface ShareConsumerDone {
  type: 'ShareConsumerDone';
  errorCode: number;
  errorMessage?: string;
  completed: AcknowledgementOutcome[];
}

/**
 * The member's state (Kafka's MemberState, in short):
 *   Unsubscribed -> Joining        subscribe
 *   Joining -> Stable              the coordinator answered the join
 *   Stable -> Joining              FENCED_MEMBER_EPOCH / UNKNOWN_MEMBER_ID: join again, same id
 *   Joining | Stable -> Stale      no poll for max.poll.interval.ms: left the group (epoch -1)
 *   Stale -> Joining               the application polls again
 *   any -> Leaving                 unsubscribe or close
 *   Leaving -> Unsubscribed | Closed
 *   Joining | Stable -> Failed     a fatal error (every poll throws it)
 */
export type ShareMemberPhase = 'Unsubscribed' | 'Joining' | 'Stable' | 'Stale' | 'Leaving' | 'Closed' | 'Failed';

export interface ShareConsumerDescription {
  type: 'ShareConsumerDescription';
  phase: ShareMemberPhase;
  memberId: string;
  /** 0 until the coordinator answered the join; -1 once left (closed, or Stale). */
  memberEpoch: number;
  heartbeatIntervalMs: number;
  subscription: string[];
  assignment: { topic: string; topicId: string; partition: number }[];
  /** Brokers this member has sent ShareFetch to. */
  fetchedFrom: number[];
  /** enable.metrics.push: where its telemetry stands (KIP-714); null without. */
  telemetry: TelemetryDescription | null;
}
