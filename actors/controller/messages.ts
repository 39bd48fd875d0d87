/**
 * Messages the controller accepts, and its replies. Names follow Kafka's requests.
 * Every reply carries `errorCode` (src/protocol/errors.ts).
 */
import type { MutationQuotaRequest } from '../../src/security/controller-mutation-quota.js';
import type { ActorRef } from '../../src/runtime/types.js';
import type { BrokerInfo, ClusterMetadata, PartitionState } from '../../src/protocol/cluster.js';
import type { FinalizedFeatures } from '../../src/protocol/features.js';
import type { AclBinding, AclBindingFilter } from '../../src/security/acl.js';
import type { QuorumEvent, QuorumReply } from '../quorum/messages.js';
import type { ScramDeletion, ScramDescription, ScramUpsertion, ScramUserResult } from './scram-credentials.js';
import type { DelegationTokenEntry, DescribedToken } from './delegation-tokens.js';

export interface CreatableTopic {
  name: string;
  /** -1 or absent: the controller's default (num.partitions). */
  numPartitions?: number;
  /** -1 or absent: the controller's default (default.replication.factor). */
  replicationFactor?: number;
  /** Explicit placement: partition index -> broker ids (overrides numPartitions/replicationFactor). */
  assignments?: number[][];
  config?: Record<string, string | number>;
}

export type ControllerMsg =
  /**
   * previousBrokerEpoch (KIP-966): the broker epoch a broker had when it last shut down cleanly
   * (absent or -1: it did not); with eligible leader replicas on, a new incarnation without the
   * epoch the controller has leaves every ISR and ELR.
   */
  | { type: 'BrokerRegistration'; brokerId: number; node: string; incarnationId: string; rack?: string | null; endpoint?: string | null; kafkaEndpoint?: string | null; previousBrokerEpoch?: number }
  /**
   * offlinePartitions: the broker's replicas whose log dir failed (as KRaft brokers report their
   * offline log dirs in every heartbeat): leadership moves away from them and they leave the ISR.
   */
  | { type: 'BrokerHeartbeat'; brokerId: number; brokerEpoch: number; wantShutDown?: boolean; offlinePartitions?: { topic: string; partition: number }[] }
  | { type: 'ControlledShutdown'; brokerId: number; brokerEpoch: number }
  /**
   * Kafka's UnregisterBroker: a decommissioned broker leaves every ISR and ELR (leaders moved as
   * for a fenced one), then the registrations; BROKER_ID_NOT_REGISTERED when it is not registered.
   */
  | { type: 'UnregisterBroker'; brokerId: number }
  /** `mutationQuota`: the client's controller_mutation_rate (KIP-599), kept here for the cluster; absent: none. */
  | { type: 'CreateTopics'; topics: CreatableTopic[]; validateOnly?: boolean; mutationQuota?: MutationQuotaRequest }
  /**
   * Delete topics by name. `topicIds`: the id each named topic must still have (a client that
   * named it by id, Kafka's DeleteTopics v6); a topic with another id is UNKNOWN_TOPIC_ID.
   */
  | { type: 'DeleteTopics'; topics: string[]; topicIds?: Record<string, string>; mutationQuota?: MutationQuotaRequest }
  /**
   * Grow topics to `count` partitions. `assignments`: replicas of each new partition (preferred
   * leader first), else placed like Kafka. `validateOnly`: check and answer, change nothing.
   */
  | { type: 'CreatePartitions'; topics: { name: string; count: number; assignments?: number[][] | null }[]; validateOnly?: boolean; mutationQuota?: MutationQuotaRequest }
  | {
      type: 'AlterPartition';
      brokerId: number;
      brokerEpoch: number;
      topic: string;
      partition: number;
      leaderEpoch: number;
      partitionEpoch: number;
      newIsr: number[];
    }
  | { type: 'Metadata'; topics?: string[] | null }
  /**
   * Changes topic config overrides (Kafka's AlterConfigs / IncrementalAlterConfigs for topics):
   * `set` keys take these values, `delete` keys go back to the broker default. Brokers hear of it
   * through the metadata and hand it to their replicas.
   */
  | { type: 'AlterTopicConfigs'; topics: { name: string; set?: Record<string, string | number>; delete?: string[] }[]; validateOnly?: boolean }
  /**
   * Changes dynamic broker configs (Kafka's IncrementalAlterConfigs / AlterConfigs for BROKER
   * resources): `resource` '' is the cluster-wide default, else a broker id; `set` keys take
   * these values, `delete` keys go back to the broker's topology config. Only the keys in
   * DYNAMIC_BROKER_CONFIG_KEYS may change; brokers take the change from the metadata.
   */
  | { type: 'AlterBrokerConfigs'; resources: { resource: string; set?: Record<string, string>; delete?: string[] }[]; validateOnly?: boolean }
  /**
   * Changes group configs (Kafka's IncrementalAlterConfigs / AlterConfigs for GROUP resources):
   * `set` keys (consumer.session.timeout.ms, consumer.heartbeat.interval.ms) take these values,
   * `delete` keys go back to the brokers' defaults; checked against the controller's consumer
   * group settings. Coordinators take the change from the metadata.
   */
  | { type: 'AlterGroupConfigs'; groups: { group: string; set?: Record<string, string>; delete?: string[] }[]; validateOnly?: boolean }
  /** Client metrics subscriptions (KIP-714): each named one's configs set and deleted (a subscription with none left is gone). */
  | { type: 'AlterClientMetrics'; subscriptions: { name: string; set?: Record<string, string>; delete?: string[] }[]; validateOnly?: boolean }
  /**
   * Kafka's AlterClientQuotas: for each entry, set or remove quota keys of its entity (Kafka's
   * wire shape of entities); answered per entry. Brokers' Kafka listeners enforce the quotas
   * once the metadata reaches them.
   */
  | {
      type: 'AlterClientQuotas';
      entries: { entity: { entityType: string; entityName: string | null }[]; ops: { key: string; value: number; remove: boolean }[] }[];
      validateOnly?: boolean;
    }
  /** A broker wants a block of producer ids for InitProducerId (Kafka's AllocateProducerIds). */
  | { type: 'AllocateProducerIds'; brokerId: number; brokerEpoch: number }
  /**
   * Kafka's UpdateFeatures (KIP-584): finalized feature levels raised, lowered or dropped
   * (level 0), all or none, checked as Kafka's FeatureControlManager (src/protocol/features.ts);
   * `upgradeType` is Kafka's 1 upgrade, 2 safe downgrade, 3 unsafe downgrade. Brokers take the
   * levels from the metadata.
   */
  | { type: 'UpdateFeatures'; updates: { feature: string; level: number; upgradeType: number }[]; validateOnly?: boolean }
  /**
   * Kafka's ElectLeaders: `electionType` 0 moves leadership to each partition's preferred replica,
   * 1 elects a leader for partitions without one (uncleanly if need be). `topicPartitions` null:
   * every partition (the answer then leaves out those that needed no election).
   */
  | { type: 'ElectLeaders'; electionType: number; topicPartitions: { topic: string; partitions: number[] }[] | null }
  /**
   * Kafka's AlterPartitionReassignments: move each named partition to `replicas` (the target
   * replica list, preferred leader first), or cancel its reassignment in progress (`replicas`
   * null). The answer comes once the reassignment has started (or completed, when the target's
   * replicas are already in sync); it completes when every target replica has joined the ISR.
   * With `allowReplicationFactorChange` false (KIP-860; absent: true), a target of another
   * length than the partition's replication factor is refused INVALID_REPLICATION_FACTOR.
   */
  | {
      type: 'AlterPartitionReassignments';
      topics: { name: string; partitions: { partition: number; replicas: number[] | null }[] }[];
      allowReplicationFactorChange?: boolean;
    }
  /**
   * Kafka's ListPartitionReassignments: the reassignments in progress among the named partitions
   * (`topics` null: all of them). Partitions without one, or unknown, are left out.
   */
  | { type: 'ListPartitionReassignments'; topics: { name: string; partitions: number[] }[] | null }
  /**
   * Kafka's CreateAcls: bind each entry (an existing binding is no change); answered per entry,
   * in order. Brokers' Kafka listeners authorize with the bindings once the metadata reaches them.
   */
  | { type: 'CreateAcls'; creations: AclBinding[] }
  /** Kafka's DeleteAcls: remove every binding each filter selects; answered per filter. */
  | { type: 'DeleteAcls'; filters: AclBindingFilter[] }
  /** Kafka's DescribeAcls: the bindings the filter selects. */
  | { type: 'DescribeAcls'; filter: AclBindingFilter }
  /** KIP-554: set (from salt and salted password) or delete users' SCRAM credentials. */
  | { type: 'AlterUserScramCredentials'; deletions: ScramDeletion[]; upsertions: ScramUpsertion[] }
  /** KIP-554: the mechanisms and iterations of the named users' credentials (null: every user's). */
  | { type: 'DescribeUserScramCredentials'; users: string[] | null }
  /**
   * KIP-48: a delegation token for `owner` ('User:alice'), asked by `requester`, renewable by
   * `renewers`; `maxLifetimeMs` <= 0: delegation.token.max.lifetime.ms. The broker has already
   * checked who may ask (the answer carries the token's HMAC, base64).
   */
  | { type: 'CreateDelegationToken'; owner: string; requester: string; renewers: string[]; maxLifetimeMs: number }
  /**
   * KIP-48: `principal` renews the token whose HMAC (base64) is given, by `renewPeriodMs` (<= 0:
   * the default). `principal` null: samsa's admin client, trusted as the cluster's own (it has no
   * Kafka principal), acting for the token's owner.
   */
  | { type: 'RenewDelegationToken'; principal: string | null; hmac: string; renewPeriodMs: number }
  /** KIP-48: `principal` (null as for renewing) sets the token's expiry `expiryTimePeriodMs` from now (negative: removes it at once). */
  | { type: 'ExpireDelegationToken'; principal: string | null; hmac: string; expiryTimePeriodMs: number }
  /** KIP-48: every token with its HMAC, for the broker to filter by owner and authorization. */
  | { type: 'DescribeDelegationTokens' }
  /** Internal: the expired delegation token sweep (delegation.token.expiry.check.interval.ms). */
  | { type: 'SweepExpiredTokens' }
  /** Internal: the leader-balancing timer (auto.leader.rebalance.enable). */
  | { type: 'BalanceLeaders' }
  /** Internal: the session-expiry timer. */
  | { type: 'CheckSessions' }
  /** Internal/tests: subscribe an actor to metadata change notifications. */
  | { type: 'WatchMetadata'; watcher: ActorRef }
  /** Internal/tests: stop sending metadata change notifications to a watcher. */
  | { type: 'UnwatchMetadata'; watcher: ActorRef }
  /**
   * The quorum's state as the active controller sees it (Kafka's DescribeQuorum goes to the
   * leader): a standby that knows the leader answers NotController. `local`: this controller's
   * own view, whatever its role; so does any controller while no leader is known.
   */
  | { type: 'DescribeQuorum'; local?: boolean }
  /**
   * Adds a controller to the metadata quorum's voters (Kafka's AddRaftVoter, KIP-853): one that
   * runs and follows the quorum as an observer, caught up; `directoryId`, when given, must be its
   * metadata dir's. Answered once the new voter set is committed, or with `ackWhenCommitted` false
   * (KIP-1186) once this controller has written it to its log, before the quorum has it.
   */
  | { type: 'AddRaftVoter'; voterId: number; directoryId?: string | null; clusterId?: string | null; ackWhenCommitted?: boolean }
  /**
   * Removes a controller from the voters (Kafka's RemoveRaftVoter); the active one may remove
   * itself and then stands down. `clusterId`, when given (Kafka's requests carry it), must be
   * this cluster's: else INCONSISTENT_CLUSTER_ID.
   */
  | { type: 'RemoveRaftVoter'; voterId: number; directoryId?: string | null; clusterId?: string | null }
  /** Its own timer: requests stashed during an election waited long enough. */
  | { type: 'StashExpired' }
  | QuorumEvent;

export type ControllerReply =
  | { type: 'CreateDelegationTokenResponse'; errorCode: number; errorMessage?: string; token: DelegationTokenEntry | null; hmac: string | null }
  | { type: 'DelegationTokenExpiryResponse'; errorCode: number; errorMessage?: string; expiryTimestamp: number }
  | { type: 'DescribeDelegationTokensResponse'; errorCode: number; errorMessage?: string; tokens: DescribedToken[] }
  | { type: 'AlterUserScramCredentialsResponse'; results: ScramUserResult[] }
  | ({ type: 'DescribeUserScramCredentialsResponse' } & ScramDescription)
  /** A standby controller's answer to any request: where the active one is, when known. */
  | { type: 'NotController'; errorCode: number; errorMessage: string; leaderId: number | null; leaderNode: string | null }
  /** AddRaftVoter and RemoveRaftVoter: NONE once the new voter set is committed (or written, as asked). */
  | { type: 'RaftVoterChangeResponse'; errorCode: number; errorMessage?: string }
  | {
      type: 'DescribeQuorumResponse';
      errorCode: number;
      active: boolean;
      controllerEpoch: number;
      appliedIndex: number;
      quorum: Extract<QuorumReply, { type: 'QuorumDescription' }> | null;
    }
  | { type: 'BrokerRegistrationResponse'; errorCode: number; errorMessage?: string; brokerEpoch: number }
  | { type: 'UnregisterBrokerResponse'; errorCode: number; errorMessage?: string }
  | { type: 'BrokerHeartbeatResponse'; errorCode: number; errorMessage?: string; isFenced: boolean; shouldShutDown: boolean }
  | {
      type: 'ControlledShutdownResponse';
      errorCode: number;
      errorMessage?: string;
      remainingPartitions: { topic: string; partition: number }[];
      /** Of the remaining, those with a replica on another live broker: a retry may yet move them. */
      movablePartitions: { topic: string; partition: number }[];
    }
  | {
      type: 'CreateTopicsResponse';
      topics: {
        name: string;
        errorCode: number;
        errorMessage: string | null;
        topicId: string | null;
        numPartitions: number;
        replicationFactor: number;
      }[];
      /** How long the client is to hold back under its controller mutation quota (0: within it). */
      throttleTimeMs?: number;
    }
  | { type: 'DeleteTopicsResponse'; topics: { name: string; errorCode: number; errorMessage: string | null; topicId?: string }[]; throttleTimeMs?: number }
  | { type: 'CreatePartitionsResponse'; topics: { name: string; errorCode: number; errorMessage: string | null }[]; throttleTimeMs?: number }
  | { type: 'AlterPartitionResponse'; errorCode: number; errorMessage?: string; state: PartitionState | null }
  | { type: 'MetadataResponse'; errorCode: number; metadata: ClusterMetadata }
  | { type: 'AlterTopicConfigsResponse'; topics: { name: string; errorCode: number; errorMessage: string | null }[] }
  | { type: 'AlterClientQuotasResponse'; entries: { errorCode: number; errorMessage: string | null; entity: { entityType: string; entityName: string | null }[] }[] }
  | { type: 'AlterBrokerConfigsResponse'; resources: { resource: string; errorCode: number; errorMessage: string | null }[] }
  | { type: 'AlterGroupConfigsResponse'; groups: { group: string; errorCode: number; errorMessage: string | null }[] }
  | { type: 'AlterClientMetricsResponse'; subscriptions: { name: string; errorCode: number; errorMessage: string | null }[] }
  | {
      type: 'ElectLeadersResponse';
      errorCode: number;
      errorMessage?: string;
      results: { topic: string; partitions: { partition: number; errorCode: number; errorMessage: string | null }[] }[];
    }
  | { type: 'AllocateProducerIdsResponse'; errorCode: number; errorMessage?: string; firstProducerId: number; count: number }
  /** One error for the whole update (Kafka: all or none); the finalized levels after it. */
  | { type: 'UpdateFeaturesResponse'; errorCode: number; errorMessage: string | null; features: FinalizedFeatures }
  | {
      type: 'AlterPartitionReassignmentsResponse';
      /** Set for a malformed request (INVALID_REQUEST); then `topics` is empty. */
      errorCode: number;
      errorMessage?: string;
      topics: { name: string; partitions: { partition: number; errorCode: number; errorMessage: string | null }[] }[];
    }
  | { type: 'CreateAclsResponse'; errorCode: number; errorMessage?: string; results: { errorCode: number; errorMessage: string | null }[] }
  | {
      type: 'DeleteAclsResponse';
      errorCode: number;
      errorMessage?: string;
      filterResults: { errorCode: number; errorMessage: string | null; matchingAcls: AclBinding[] }[];
    }
  | { type: 'DescribeAclsResponse'; errorCode: number; errorMessage: string | null; acls: AclBinding[] }
  | {
      type: 'ListPartitionReassignmentsResponse';
      errorCode: number;
      errorMessage?: string;
      topics: { name: string; partitions: OngoingReassignment[] }[];
    };

/** A partition's reassignment in progress: all its replicas now, and which are coming and going. */
export interface OngoingReassignment {
  partition: number;
  /** The target replicas first, then those being removed. */
  replicas: number[];
  addingReplicas: number[];
  removingReplicas: number[];
}

export type { BrokerInfo };
