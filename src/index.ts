/**
 * samsa's public API.
 */
export { ActorSystem, ASK_PATH } from './runtime/actor-system.js';
export type { ActorSystemOptions, DeadLetter, SystemStats } from './runtime/actor-system.js';
export { arrayOf, clientMessageProblem, defineActor, objectOf, validateMessage } from './runtime/actor-definition.js';
export type {
  ActorContext,
  ActorDefinition,
  ActorTimers,
  AskOptions,
  BaseContext,
  ClientMessages,
  Directive,
  FieldKind,
  FieldSpec,
  Handler,
  Handlers,
  MessageSchema,
  NestedSpec,
  ReplyToken,
  SpawnOptions,
  SupervisionPolicy,
} from './runtime/actor-definition.js';
export { actorRef, formatRef, isFailure, sameRef } from './runtime/types.js';
export type { ActorRef, Envelope, Failure, FailureReason, Message } from './runtime/types.js';
export { FakeClock, systemClock } from './runtime/clock.js';
export type { Clock, TimerHandle } from './runtime/clock.js';
export { childLogger, LOGGER_LEVELS, loggerLevels, rootLogger, setLoggerLevel, setLogLevel, unsetLoggerLevel, type LoggerLevel } from './runtime/logger.js';
export type { Logger, LogLevel } from './runtime/logger.js';
// the V8 settings `samsa start` uses (a topology's `runtime` sets them too; call these before
// your application warms up to run an embedded cluster the same way)
export { BROKER_HEAP_GROWING_PERCENT, heapGrowingPercent, setHeapGrowingPercent } from './runtime/heap-growth.js';
export { SAMSA_ALLOCATION_SITE_PRETENURING, allocationSitePretenuring, setAllocationSitePretenuring } from './runtime/pretenuring.js';
export type { Endpoint, Transport } from './runtime/endpoint.js';
export { InProcNetwork } from './transport/inproc.js';
export { WorkerHub, WorkerNode } from './transport/worker.js';
export type { WorkerNodeOptions } from './transport/worker.js';
export { TcpTransport, TCP_PROTOCOL_VERSION } from './transport/tcp.js';
export type { TcpTransportOptions } from './transport/tcp.js';
export { ErrorCode, allErrors, errorInfo, errorName, isRetriable } from './protocol/errors.js';
export type { ErrorInfo, ErrorName } from './protocol/errors.js';

// clients
export { SamsaClient } from './client/samsa.js';
export type { SamsaClientConfig } from './client/samsa.js';
export { Producer } from './client/producer.js';
export type { ProducerRecordBatch } from './client/producer.js';
export type { ClientMetric } from './client/metrics.js';
export { Transaction } from './client/transaction.js';
export type { TransactionOffsets } from './client/transaction.js';
export { Consumer } from './client/consumer.js';
export type { Batch, ConsumerEvents, ConsumerGroupMetadata, EachBatchPayload, EachMessagePayload, KafkaMessage, RunOptions } from './client/consumer.js';
export { AcknowledgeType, IllegalStateError, ShareConsumer } from './client/share-consumer.js';
export type { AcknowledgementCommitCallback, ShareAcknowledgementResult, ShareAcknowledgeType, ShareConsumerDescription, ShareRecord, ShareRecordRef } from './client/share-consumer.js';
export { ShareConsumerConfigError } from '../actors/share-consumer/share-consumer-config.js';
export { Admin } from './client/admin.js';
export { AdminConfigError } from '../actors/admin/admin-config.js';
export type { AclEntry, AclFilter, AclResource, DeleteAclsFilterResponse, ElectionResult, MatchingAcl, PartitionLag, PartitionOffsets, TopicConfig } from './client/admin.js';
export type { BrokerConfigChange, BrokerLogger, ClientMetricsChange, ClientMetricsResult, ClientMetricsSubscription, ConfigEntry, ConfigSource, ConfigSynonym, DynamicBrokerConfigs, GroupConfigChange, GroupConfigResult, GroupConfigs, ResourceConfigs } from './client/admin.js';
export { QuotaMatchType } from './client/admin.js';
export type { ClientQuotaAlteration, ClientQuotaEntity, ClientQuotaEntry, ClientQuotaFilterComponent, ClientQuotaOp } from './client/admin.js';
// SCRAM credentials (KIP-554), for admin.alterUserScramCredentials / describeUserScramCredentials
export { DEFAULT_SCRAM_ITERATIONS, ScramMechanism } from './client/admin.js';
export type { ScramCredentialInfo, ScramMechanismName, UserScramCredentialAlteration, UserScramCredentialDeletion, UserScramCredentialsDescription, UserScramCredentialUpsertion } from './client/admin.js';
// delegation tokens (KIP-48), for admin.createDelegationToken / renewDelegationToken / expireDelegationToken / describeDelegationToken
export type { DelegationToken, TokenInformation } from './client/admin.js';
export type { BrokerLogDirs, ReplicaLogDir, ReplicaLogDirResult } from './client/admin.js';
export type { AbortTransactionSpec, FeatureMetadata, FeatureUpgradeType, FindHangingOptions, MetadataQuorumInfo, OpenTransaction, PartitionProducers, QuorumVoterInfo, TransactionDescription, TransactionListing } from './client/admin.js';
// Kafka's ACL codes (the values of KafkaJS's enums), for admin.createAcls / describeAcls / deleteAcls
export { AclOperation, AclPermission, PatternType, ResourceType } from './security/acl.js';
export { CommitFailedError, SamsaError } from './client/errors.js';
export type { Message as ProducerMessage } from './client/records.js';
export { partitionForKey, murmur2, toPositive } from './client/partitioner.js';

// records and storage, for tools and extensions
export { encodeRecordBatch, decodeRecordBatch, decodeRecordBatches } from './protocol/record-batch.js';
export { crc32c, crc32cImplementation, type Crc32cImplementation } from './protocol/crc32c.js';
// compression: gzip, snappy, lz4 and zstd are built in; registerCodec replaces one
export { CompressionType, compressionId, compressionName, isCodecSupported, registerCodec, UnsupportedCompressionError } from './protocol/compression.js';
export { DecompressedSizeError } from './protocol/decompressed-size.js';
export type { CodecImpl, CompressionName } from './protocol/compression.js';
export { PartitionLog } from './storage/partition-log.js';
export { LogManager } from './storage/log-manager.js';
export { LogDirs } from './storage/log-dirs.js';

// topology
export { startCluster, loadTopology, exampleTopology, ClusterHandle, TopologyError, validateTopology, parseTopology } from './topology/start-cluster.js';
export type { StartOptions, TopologyConfig, TopologyProblem } from './topology/start-cluster.js';
export type { ClientTelemetryPush } from './kafka/client-telemetry.js';
export { TELEMETRY_CONTENT_TYPE } from './kafka/client-telemetry.js';
export { decodeOtlpMetrics, OtlpDecodeError } from './kafka/otlp-metrics.js';
export type { OtlpMetric, OtlpMetricsData, OtlpPoint, OtlpValue } from './kafka/otlp-metrics.js';
export { telemetrySink } from '../actors/telemetry-sink/sink.js';
export type { TelemetryClient, TelemetryPoint, TelemetrySinkArgs, TelemetrySinkMsg } from '../actors/telemetry-sink/sink.js';
