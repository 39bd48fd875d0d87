/**
 * Requests the controller sends to brokers (tells; brokers answer nothing but log problems).
 * Every one carries the controller epoch: a broker ignores an older one (STALE_CONTROLLER_EPOCH).
 */
import type { ScramCredentialEntry } from '../controller/scram-credentials.js';
import type { TokenAuthEntry } from '../controller/delegation-tokens.js';
import type { BrokerInfo, ClusterMetadata, PartitionState } from '../../src/protocol/cluster.js';
import { arrayOf, objectOf } from '../../src/runtime/actor-definition.js';

export interface LeaderAndIsrPartition extends PartitionState {
  topicId: string;
  /** true the first time the partition is created: the replica starts an empty log. */
  isNew: boolean;
  /** Topic config overrides (retention.ms, min.insync.replicas, ...). */
  config: Record<string, string | number>;
  /**
   * eligible.leader.replicas.version is 1 (KIP-966; absent: 0): the leader advances the high
   * watermark only while the ISR is at min.insync.replicas or above.
   */
  eligibleLeaderReplicasEnabled?: boolean;
}

const brokerIds = arrayOf('integer');
const someBrokerIds = arrayOf('integer', { optional: true });

/** The boundary check of a LeaderAndIsrPartition (broker and replica schemas). */
export const LEADER_AND_ISR_PARTITION = objectOf({
  topic: 'string',
  partition: 'integer',
  replicas: brokerIds,
  isr: brokerIds,
  leader: 'integer',
  leaderEpoch: 'integer',
  partitionEpoch: 'integer',
  addingReplicas: someBrokerIds,
  removingReplicas: someBrokerIds,
  elr: someBrokerIds,
  lastKnownElr: someBrokerIds,
  topicId: 'string',
  isNew: 'boolean',
  config: 'object',
  eligibleLeaderReplicasEnabled: 'boolean?',
});

/** The boundary check of a BrokerInfo a LeaderAndIsrRequest names (the fields followers use). */
export const LIVE_LEADER = objectOf({ brokerId: 'integer', node: 'string' });

export type ControlToBrokerMsg =
  | {
      type: 'LeaderAndIsrRequest';
      controllerEpoch: number;
      brokerId: number;
      partitions: LeaderAndIsrPartition[];
      /** Every broker named as leader in `partitions`, so followers know where to fetch. */
      liveLeaders: BrokerInfo[];
    }
  | {
      type: 'StopReplicaRequest';
      controllerEpoch: number;
      brokerId: number;
      partitions: { topic: string; partition: number; deletePartition: boolean }[];
    }
  /**
   * `scramCredentials`: the cluster's SCRAM credentials (KIP-554), and `delegationTokens` the SCRAM
   * credentials of its delegation tokens (KIP-48, never their HMACs), for the broker's SASL listener
   * only; sent to brokers, never to watchers, and never part of the metadata clients see.
   */
  | { type: 'UpdateMetadataRequest'; controllerEpoch: number; metadata: ClusterMetadata; scramCredentials?: ScramCredentialEntry[]; delegationTokens?: TokenAuthEntry[] };
