/**
 * Api key -> handler for every API this listener advertises (src/kafka/api/versions.ts). Adding
 * an API: write its handler beside the others, register it here and advertise its versions.
 */
import type { ApiHandler } from './context.js';
import { fetch } from './fetch.js';
import { deleteGroups, describeGroups, findCoordinator, heartbeat, joinGroup, leaveGroup, listGroups, offsetDelete, syncGroup } from './groups.js';
import { listOffsets, offsetForLeaderEpoch } from './list-offsets.js';
import { metadata } from './metadata.js';
import { offsetCommit, offsetFetch } from './offsets.js';
import { createAcls, deleteAcls, describeAcls } from './acls.js';
import { alterClientQuotas, describeClientQuotas } from './client-quotas.js';
import { alterUserScramCredentials, describeUserScramCredentials } from './scram-credentials.js';
import { createDelegationToken, describeDelegationToken, expireDelegationToken, renewDelegationToken } from './delegation-tokens.js';
import { alterConfigs, incrementalAlterConfigs } from './alter-configs.js';
import { deleteRecords } from './delete-records.js';
import { describeCluster } from './describe-cluster.js';
import { describeConfigs } from './describe-configs.js';
import { describeQuorum } from './describe-quorum.js';
import { addRaftVoter, removeRaftVoter } from './raft-voters.js';
import { updateFeatures } from './features.js';
import { alterReplicaLogDirs } from './alter-replica-log-dirs.js';
import { describeLogDirs } from './describe-log-dirs.js';
import { electLeaders } from './elect-leaders.js';
import { produce } from './produce.js';
import { txnOffsetCommit } from './txn-offset-commit.js';
import { initProducerId } from './producer-id.js';
import { addOffsetsToTxn, addPartitionsToTxn, describeTransactions, endTxn, listTransactions } from './transactions.js';
import { describeProducers } from './describe-producers.js';
import { unregisterBroker } from './unregister-broker.js';
import { writeTxnMarkers } from './write-txn-markers.js';
import { alterPartitionReassignments, listPartitionReassignments } from './reassignments.js';
import { createPartitions, createTopics } from './topics.js';
import { deleteTopics } from './delete-topics.js';
import { describeTopicPartitions } from './describe-topic-partitions.js';
import { getTelemetrySubscriptions, pushTelemetry } from './client-telemetry.js';
import { listConfigResources } from './list-config-resources.js';
import { consumerGroupDescribe, consumerGroupHeartbeat } from './consumer-groups.js';
import { shareAcknowledge, shareFetch, shareGroupDescribe, shareGroupHeartbeat } from './share-groups.js';
import { alterShareGroupOffsets, deleteShareGroupOffsets, describeShareGroupOffsets } from './share-group-offsets.js';
import { SUPPORTED_VERSIONS, apiVersions } from './versions.js';

// each entry's handler is typed for its own key; the map forgets which, the connection keys by header
export const API_HANDLERS: ReadonlyMap<number, ApiHandler<any>> = new Map<number, ApiHandler<any>>([
  [0, produce],
  [1, fetch],
  [2, listOffsets],
  [3, metadata],
  [8, offsetCommit],
  [9, offsetFetch],
  [10, findCoordinator],
  [11, joinGroup],
  [12, heartbeat],
  [13, leaveGroup],
  [14, syncGroup],
  [15, describeGroups],
  [16, listGroups],
  [18, apiVersions],
  [19, createTopics],
  [20, deleteTopics],
  [21, deleteRecords],
  [22, initProducerId],
  [23, offsetForLeaderEpoch],
  [24, addPartitionsToTxn],
  [25, addOffsetsToTxn],
  [26, endTxn],
  [27, writeTxnMarkers],
  [28, txnOffsetCommit],
  [29, describeAcls],
  [30, createAcls],
  [31, deleteAcls],
  [32, describeConfigs],
  [33, alterConfigs],
  [34, alterReplicaLogDirs],
  [35, describeLogDirs],
  [37, createPartitions],
  [38, createDelegationToken],
  [39, renewDelegationToken],
  [40, expireDelegationToken],
  [41, describeDelegationToken],
  [42, deleteGroups],
  [43, electLeaders],
  [44, incrementalAlterConfigs],
  [45, alterPartitionReassignments],
  [46, listPartitionReassignments],
  [47, offsetDelete],
  [48, describeClientQuotas],
  [49, alterClientQuotas],
  [50, describeUserScramCredentials],
  [51, alterUserScramCredentials],
  [55, describeQuorum],
  [60, describeCluster],
  [61, describeProducers],
  [64, unregisterBroker],
  [65, describeTransactions],
  [66, listTransactions],
  [68, consumerGroupHeartbeat],
  [69, consumerGroupDescribe],
  [71, getTelemetrySubscriptions],
  [72, pushTelemetry],
  [74, listConfigResources],
  [75, describeTopicPartitions],
  [76, shareGroupHeartbeat],
  [77, shareGroupDescribe],
  [78, shareFetch],
  [79, shareAcknowledge],
  [57, updateFeatures],
  [80, addRaftVoter],
  [81, removeRaftVoter],
  [90, describeShareGroupOffsets],
  [91, alterShareGroupOffsets],
  [92, deleteShareGroupOffsets],
]);

for (const key of SUPPORTED_VERSIONS.keys()) {
  if (!API_HANDLERS.has(key)) throw new Error(`api key ${key} is advertised but has no handler`);
}
