/**
 * Messages the producer actor accepts, and its replies. Record keys, values and header values
 * are bytes; the promise API (src/client/producer.ts) converts strings.
 */
import type { Failure } from '../../src/runtime/types.js';
import type { ClusterMetadata } from '../../src/protocol/cluster.js';
import type { BrokerProduceResponse } from '../broker/messages.js';
import type { TxnRpcResult } from './txn-rpc.js';
import type { ClientMetric } from '../../src/client/metrics.js';
import type { TelemetryDescription, TelemetryMsg } from '../../src/client/telemetry-loop.js';

/** Offsets a transaction commits for a consumer group (sendOffsets). */
export interface TxnOffsets {
  topic: string;
  partitions: { partition: number; offset: number; metadata?: string | null }[];
}

/**
 * The consumer group member whose offsets a transaction commits (Kafka's ConsumerGroupMetadata,
 * KIP-447): the group coordinator refuses the commit if the member left the group or the group
 * moved on to another generation (a zombie's offsets never count). Generation -1 and member ''
 * check nothing.
 */
export interface TxnGroupMember {
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
}

export interface ProducerRecord {
  key?: Uint8Array | null;
  value: Uint8Array | null;
  headers?: { key: string; value: Uint8Array | null }[];
  partition?: number | null;
  timestamp?: number;
}

export interface TopicRecords {
  topic: string;
  messages: ProducerRecord[];
}

export interface RecordMetadata {
  topic: string;
  partition: number;
  errorCode: number;
  errorMessage?: string;
  /** Offset of the first of this send's records in the partition (-1 with acks 0). */
  baseOffset: number;
  logAppendTime: number;
}

export type ProducerMsg =
  | { type: 'Send'; topics: TopicRecords[] }
  | { type: 'Flush' }
  | { type: 'Close' }
  | { type: 'DescribeProducer' }
  /** Kafka's producer-metrics (producer-metrics.ts). Answered ProducerMetricsReply. */
  | { type: 'Metrics' }
  /** transactional.id: begin a transaction (the first one initialises the producer id). Answered TxnResult. */
  | { type: 'BeginTxn' }
  /** transactional.id: commit the group's offsets with the ongoing transaction. Answered TxnResult. */
  | { type: 'SendOffsetsToTxn'; groupId: string; topics: TxnOffsets[]; member?: TxnGroupMember }
  /** transactional.id: flush the transaction's batches, then commit or abort it. Answered TxnResult. */
  | { type: 'EndTxn'; commit: boolean }
  // internal
  | { type: 'Drain' }
  | { type: 'ProduceDone'; requestId: number; response: BrokerProduceResponse | Failure }
  | { type: 'MetadataResult'; metadata: ClusterMetadata | null; errorCode: number }
  | { type: 'BlockTimeout' }
  /** enable.idempotence: a broker's answer to InitProducerId. */
  | { type: 'ProducerIdResult'; errorCode: number; errorMessage?: string; producerId: number; producerEpoch: number }
  /** transactional.id: a request to a coordinator settled (after its retries). */
  | { type: 'TxnRpcDone'; op: TxnRpcOp; result: TxnRpcResult }
  /** enable.metrics.push: the push loop's timers, the brokers' answers, and clientInstanceId's GetClientInstanceId (KIP-714, src/client/telemetry-loop.ts). */
  | TelemetryMsg;

/** The transactional requests the producer makes, one of each kind at a time. */
export type TxnRpcOp = 'InitProducerId' | 'AddPartitionsToTxn' | 'AddOffsetsToTxn' | 'SendOffsets' | 'EndTxn';

/** The answer to BeginTxn, SendOffsetsToTxn and EndTxn. */
export interface TxnResult {
  type: 'TxnResult';
  errorCode: number;
  errorMessage?: string;
}

export interface SendResult {
  type: 'SendResult';
  /** NONE when every record was acknowledged; else the first error (details per partition). */
  errorCode: number;
  errorMessage?: string;
  results: RecordMetadata[];
}

export interface ProducerDescription {
  type: 'ProducerDescription';
  bufferUsed: number;
  queuedBatches: number;
  inFlightBatches: number;
  blockedSends: number;
  /** Batch buffers the producer keeps for its next batches. */
  freeBatchBuffers: number;
  metadataAgeMs: number;
  /** enable.metrics.push: where its telemetry stands (KIP-714); null without. */
  telemetry: TelemetryDescription | null;
}

export interface ProducerMetricsReply {
  type: 'ProducerMetrics';
  metrics: ClientMetric[];
}
