/**
 * Messages the admin actor accepts. Each reply carries `errorCode` (and errorMessage on error).
 */
import type { ClientMetric } from '../../src/client/metrics.js';
import type { TelemetryMsg } from '../../src/client/telemetry-loop.js';
import type { AclBinding, AclBindingFilter } from '../../src/security/acl.js';
import type { QuotaFilterComponent } from '../../src/security/client-quotas.js';
import type { BrokerLoggerChange } from '../broker/messages.js';
import type { CreatableTopic } from '../controller/messages.js';
import type { ScramDeletion, ScramUpsertion } from '../controller/scram-credentials.js';
import type { IsolationLevel } from '../partition-replica/messages.js';

export type AdminMsg =
  | { type: 'CreateTopics'; topics: CreatableTopic[]; validateOnly?: boolean }
  | { type: 'DeleteTopics'; topics: string[] }
  /** `assignments`: the new partitions' replicas (preferred leader first), else placed as Kafka places them. */
  | { type: 'CreatePartitions'; topics: { name: string; count: number; assignments?: number[][] | null }[] }
  /** Sets and removes topic config overrides (the others stay); every replica and its log take them. */
  | { type: 'AlterTopicConfigs'; topics: { name: string; set?: Record<string, string>; delete?: string[] }[]; validateOnly?: boolean }
  /**
   * Leader elections (Kafka's ElectLeaders): 'preferred' moves partitions back to their preferred
   * replica, 'unclean' elects a leader for partitions without one; null partitions: all of them.
   */
  | { type: 'ElectLeaders'; electionType: 'preferred' | 'unclean'; partitions: { topic: string; partition: number }[] | null }
  /**
   * Partition reassignments (Kafka's AlterPartitionReassignments, KIP-455): move each partition to
   * `replicas` (preferred leader first), or cancel its reassignment in progress (`replicas` null);
   * with `allowReplicationFactorChange` false (KIP-860; absent: true) a move that would change a
   * partition's replication factor is refused.
   */
  | { type: 'AlterPartitionReassignments'; topics: { name: string; partitions: { partition: number; replicas: number[] | null }[] }[]; allowReplicationFactorChange?: boolean }
  /** The reassignments in progress among the named partitions (null: all of them). */
  | { type: 'ListPartitionReassignments'; topics: { name: string; partitions: number[] }[] | null }
  | { type: 'ListTopics' }
  /** The cluster's live brokers; with `includeFencedBrokers` (KIP-1073), the registered ones that are fenced too. */
  | { type: 'DescribeCluster'; includeFencedBrokers?: boolean }
  /**
   * The metadata quorum as its leader sees it (Kafka's DescribeQuorum): leader, term, commit
   * index, and each voter's log end and last contact. Answered with MetadataQuorum.
   */
  | { type: 'DescribeMetadataQuorum' }
  /** Kafka's AddRaftVoter and RemoveRaftVoter (KIP-853), to the active controller: answered RaftVoterChangeResponse once committed. */
  | { type: 'AddRaftVoter'; voterId: number; directoryId?: string | null; ackWhenCommitted?: boolean }
  | { type: 'RemoveRaftVoter'; voterId: number; directoryId?: string | null }
  /** Kafka's UnregisterBroker, to the active controller: a decommissioned broker leaves the registrations; answered UnregisterBrokerResponse. */
  | { type: 'UnregisterBroker'; brokerId: number }
  /** The features samsa implements and the cluster's finalized levels (KIP-584), from the active controller: answered Features. */
  | { type: 'DescribeFeatures' }
  /** Kafka's UpdateFeatures, to the active controller (upgradeType: 1 upgrade, 2 safe, 3 unsafe downgrade): answered UpdateFeaturesResponse. */
  | { type: 'UpdateFeatures'; updates: { feature: string; level: number; upgradeType: number }[]; validateOnly: boolean }
  | { type: 'FetchTopicMetadata'; topics: string[] | null }
  /**
   * Every live broker's groups (Kafka's ListGroups), only those of the given types ('classic',
   * 'consumer', 'share') and states (case-insensitive) where those are given and not empty.
   */
  | { type: 'ListGroups'; types?: string[]; states?: string[] }
  | { type: 'DescribeGroups'; groups: string[] }
  /** KIP-848 consumer groups, each of its coordinator (Kafka's ConsumerGroupDescribe): answered DescribedConsumerGroups. */
  | { type: 'DescribeConsumerGroups'; groups: string[] }
  /** KIP-932 share groups, each of its coordinator (Kafka's ShareGroupDescribe): answered DescribedShareGroups, each with its coordinator's id. */
  | { type: 'DescribeShareGroups'; groups: string[] }
  /**
   * A share group's offsets (Kafka's DescribeShareGroupOffsets v1, share-group-offsets.ts): per
   * partition the start offset, leader epoch and lag; of every partition of the named topics, or
   * (null) of those the group has state for or its members use. Answered ShareGroupOffsets.
   */
  | { type: 'ListShareGroupOffsets'; groupId: string; topics: string[] | null }
  /** Kafka's AlterShareGroupOffsets: new start offsets of an Empty share group's partitions. Answered ShareGroupOffsetsAltered. */
  | { type: 'AlterShareGroupOffsets'; groupId: string; topics: { topic: string; partitions: { partition: number; startOffset: number }[] }[] }
  /** Kafka's DeleteShareGroupOffsets: an Empty share group's state of the topics removed. Answered ShareGroupOffsetsDeleted. */
  | { type: 'DeleteShareGroupOffsets'; groupId: string; topics: string[] }
  | { type: 'DeleteGroups'; groups: string[] }
  /**
   * Kafka's removeMembersFromConsumerGroup (LeaveGroup from an admin): the members named (a
   * static member by its instance id alone, memberId ''), or every member the group has (null,
   * as Kafka's removeAll: described first); answered MembersRemoved with each member's error.
   */
  | { type: 'RemoveMembers'; groupId: string; members: { memberId: string; groupInstanceId: string | null }[] | null; reason?: string | null }
  /**
   * Kafka's deleteConsumerGroupOffsets (OffsetDelete to the group's coordinator): the committed
   * offsets of these partitions go; answered OffsetsDeleted, a result per partition
   * (GROUP_SUBSCRIBED_TO_TOPIC while a member is subscribed to its topic), top-level errors such
   * as GROUP_ID_NOT_FOUND or NON_EMPTY_GROUP (a classic group of another protocol type) as the
   * reply's errorCode.
   */
  | { type: 'DeleteOffsets'; groupId: string; partitions: { topic: string; partition: number }[] }
  /** Kafka's DescribeTransactions, each id of its coordinator: answered DescribedTransactions (an errorCode per id). */
  | { type: 'DescribeTransactions'; transactionalIds: string[] }
  /**
   * Kafka's fenceProducers (KIP-618): an InitProducerId for each transactional id, to its
   * coordinator, which bumps the id's epoch (fencing the producer that has it) and aborts its
   * ongoing transaction; answered FencedProducers, each id's new producer id and epoch or error.
   */
  | { type: 'FenceProducers'; transactionalIds: string[]; transactionTimeoutMs?: number }
  /**
   * Kafka's ListTransactions of every live broker (answered Transactions, each with the broker
   * coordinating it): only the given states and producer ids where those are not empty, only
   * transactions running longer than durationMs where it is 0 or more, only the ids
   * transactionalIdPattern matches whole where it is given and not empty (KIP-1152).
   */
  | { type: 'ListTransactions'; states: string[]; producerIds: number[]; durationMs: number; transactionalIdPattern?: string | null }
  /**
   * Kafka's DescribeProducers of each partition of `topic` (all, or those named) from its leader,
   * or from the replica on broker `brokerId` when given: answered Producers (an errorCode per partition).
   */
  | { type: 'DescribeProducers'; topic: string; partitions: number[] | null; brokerId?: number }
  /**
   * Kafka's abortTransaction: an ABORT marker for `producerId`'s open transaction on one partition,
   * written by its leader as a transaction coordinator would (WriteTxnMarkers), for a transaction
   * no coordinator will end. Answered TransactionAborted once the ISR has the marker.
   */
  | { type: 'AbortTransaction'; topic: string; partition: number; producerId: number; producerEpoch: number; coordinatorEpoch: number }
  | { type: 'FetchOffsets'; groupId: string; topics: string[] | null }
  /** Sets a group's committed offsets: to explicit offsets, or to the earliest / latest of each partition. */
  | { type: 'ResetOffsets'; groupId: string; topic: string; to: 'earliest' | 'latest' | { partition: number; offset: number }[] }
  /** Each partition's log start offset (low) and high watermark (high), from its leader. */
  | { type: 'FetchTopicOffsets'; topic: string }
  /**
   * Kafka's Admin.listOffsets: each partition's offset for `timestamp` (a time in ms, or the
   * replica's EARLIEST / LATEST / MAX_TIMESTAMP sentinel) from its leader, asked again while the
   * leader moves; answered Offsets, an errorCode per partition, in the order asked.
   */
  | { type: 'ListOffsets'; partitions: { topic: string; partition: number }[]; timestamp: number; isolationLevel: IsolationLevel }
  /**
   * Kafka's DeleteRecords: each partition's leader moves its log start to `offset` (-1: the high
   * watermark); answered RecordsDeleted, the new low watermark or an errorCode per partition.
   */
  | { type: 'DeleteRecords'; partitions: { topic: string; partition: number; offset: number }[] }
  /** Committed offset, log end (high watermark) and lag per partition of a group's topics. */
  | { type: 'GroupLag'; groupId: string; topics: string[] | null }
  /**
   * Each broker's log dirs (Kafka's DescribeLogDirs, asked of every broker named; null: every
   * live one) with the partition logs in them, all or those of `topics` (a topic's partitions
   * null: all of its). A broker that cannot be asked carries its error code.
   */
  | { type: 'DescribeLogDirs'; brokers: number[] | null; topics: { topic: string; partitions?: number[] | null }[] | null }
  /**
   * Kafka's AlterReplicaLogDirs: move each replica (a partition on a broker) into the log dir
   * named (an absolute path of that broker's log dirs); each broker is asked for its own. Answered
   * ReplicaLogDirsAltered with a code per replica (NONE: the move has begun, or the log is there).
   */
  | { type: 'AlterReplicaLogDirs'; replicas: { topic: string; partition: number; broker: number; logDir: string }[] }
  /**
   * Dynamic broker configs (KIP-226), passed to the controller as they are: `resource` '' is the
   * cluster-wide default, else a broker id.
   */
  | { type: 'AlterBrokerConfigs'; resources: { resource: string; set?: Record<string, string>; delete?: string[] }[]; validateOnly?: boolean }
  /** The dynamic broker configs in the controller's metadata: '' (the cluster-wide default) or a broker id -> its keys and values. */
  | { type: 'DynamicBrokerConfigs' }
  /**
   * Group configs (Kafka 4.0's GROUP config resources: consumer.session.timeout.ms,
   * consumer.heartbeat.interval.ms), passed to the controller as they are; answered per group.
   */
  | { type: 'AlterGroupConfigs'; groups: { group: string; set?: Record<string, string>; delete?: string[] }[]; validateOnly?: boolean }
  /** The group configs in the controller's metadata: group id -> its keys and values. */
  | { type: 'DynamicGroupConfigs' }
  /** Client metrics subscriptions (KIP-714), passed to the controller as they are; answered per subscription. */
  | { type: 'AlterClientMetrics'; subscriptions: { name: string; set?: Record<string, string>; delete?: string[] }[]; validateOnly?: boolean }
  /** The client metrics subscriptions in the controller's metadata: name -> its keys and values. */
  | { type: 'ClientMetricsSubscriptions' }
  /**
   * Kafka's DescribeConfigs (config-entries.ts): a broker's every key (asked of that broker), the
   * cluster-wide dynamic defaults (broker null), a topic's every key, on the leader of its first
   * partition (or another live broker), or a group's keys (groupConfigEntries in actors/broker/config-entries.ts), its own
   * values over the broker defaults of its coordinator (the leader of its __consumer_offsets
   * partition, or another live broker).
   */
  | { type: 'DescribeConfigs'; resource: { broker: number | null } | { topic: string } | { group: string } }
  /** A broker's loggers (Kafka's BROKER_LOGGER configs), asked of that broker: root and its node's named loggers, each at its level. */
  | { type: 'DescribeBrokerLoggers'; broker: number }
  /** Changes to a broker's loggers, made by that broker (a level set or taken away), checked whole before any is made. */
  | { type: 'AlterBrokerLoggers'; broker: number; changes: BrokerLoggerChange[]; validateOnly?: boolean }
  /**
   * Kafka's AlterClientQuotas, passed to the controller as it is (Kafka's wire shape of entities:
   * [{ entityType: 'user' | 'client-id', entityName: name or null for the default }]); answered per entry.
   */
  | {
      type: 'AlterClientQuotas';
      entries: { entity: { entityType: string; entityName: string | null }[]; ops: { key: string; value: number; remove: boolean }[] }[];
      validateOnly?: boolean;
    }
  /**
   * The client quotas in the controller's metadata that pass Kafka's DescribeClientQuotas filter
   * (`strict`: entities naming no other entity type than the components'), in entity order.
   */
  | { type: 'DescribeClientQuotas'; components: QuotaFilterComponent[]; strict: boolean }
  /** Kafka's CreateAcls, DeleteAcls and DescribeAcls, passed to the controller as they are. */
  | { type: 'CreateAcls'; creations: AclBinding[] }
  | { type: 'DeleteAcls'; filters: AclBindingFilter[] }
  | { type: 'DescribeAcls'; filter: AclBindingFilter }
  /**
   * Kafka's AlterUserScramCredentials (KIP-554), passed to the controller as it is: each
   * upsertion carries a salt and the salted password (base64) the client computed, never the
   * password. Answered with a result per user (a user's changes are taken or refused together).
   */
  | { type: 'AlterUserScramCredentials'; deletions: ScramDeletion[]; upsertions: ScramUpsertion[] }
  /** Kafka's DescribeUserScramCredentials: the named users (null: every user with a credential), mechanisms and iterations only. */
  | { type: 'DescribeUserScramCredentials'; users: string[] | null }
  /**
   * Delegation tokens (KIP-48), passed to the controller as they are. The admin client has no
   * Kafka principal: it names the owner (and the requester) of a token it creates, and renews or
   * expires as `principal`, or as the token's owner when null.
   */
  | { type: 'CreateDelegationToken'; owner: string; requester: string; renewers: string[]; maxLifetimeMs: number }
  | { type: 'RenewDelegationToken'; principal: string | null; hmac: string; renewPeriodMs: number }
  | { type: 'ExpireDelegationToken'; principal: string | null; hmac: string; expiryTimePeriodMs: number }
  /** Every delegation token with its HMAC (the admin client filters by owner). */
  | { type: 'DescribeDelegationTokens' }
  /** The admin's metrics (Kafka's admin-client-metrics and admin-client-node-metrics, admin-metrics.ts): answered AdminMetrics. */
  | { type: 'Metrics' }
  /** The admin client closes: with enable.metrics.push, its terminating push goes out; answered Closed once telemetry has ended. */
  | { type: 'Close' }
  /** enable.metrics.push: the push loop's timers, the brokers' answers, and clientInstanceId's GetClientInstanceId (KIP-714, src/client/telemetry-loop.ts). */
  | TelemetryMsg;

export interface AdminMetricsReply {
  type: 'AdminMetrics';
  errorCode: number;
  metrics: ClientMetric[];
}
