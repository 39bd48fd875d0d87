/**
 * Messages the share coordinator accepts, and its replies (Kafka's share-group state APIs,
 * KIP-932: ReadShareGroupState, WriteShareGroupState, DeleteShareGroupState,
 * InitializeShareGroupState, ReadShareGroupStateSummary, one share partition per message).
 *
 * The state of a share partition, (group, topic id, partition), lives on the leader of the
 * __share_group_state partition its coordinator key "groupId:topicId:partition" hashes to
 * (Kafka's SharePartitionKey and Utils.abs(key.hashCode) % share.coordinator.state.topic.num.partitions).
 * A share partition leader finds it with FindCoordinator (key type share, answered by any
 * broker) and talks to the coordinator actor at shareCoordinatorPath(brokerId). Every reply
 * carries `errorCode`: NOT_COORDINATOR for a key whose partition is not led here,
 * COORDINATOR_LOAD_IN_PROGRESS while that partition loads.
 */
import { offsetsPartitionFor } from '../group-coordinator/messages.js';
import { isKafkaTopicId } from '../../src/protocol/topic-id.js';
import type { ShareStateBatch, ShareStateKey } from './share-state-records.js';

export type { ShareStateBatch, ShareStateKey } from './share-state-records.js';

/** Kafka's internal topic of share-group state. */
export const SHARE_GROUP_STATE_TOPIC = '__share_group_state';

/** The share coordinator actor of broker `brokerId` (a child of the broker). */
export function shareCoordinatorPath(brokerId: number): string {
  return `/broker-${brokerId}/share-coordinator`;
}

/** Kafka's SharePartitionKey.asCoordinatorKey(): "groupId:topicId:partition". */
export function shareCoordinatorKey(key: ShareStateKey): string {
  return `${key.groupId}:${key.topicId}:${key.partition}`;
}

/**
 * A FindCoordinator share key's parts, or null when it is not one (Kafka's
 * SharePartitionKey.validate: three parts split on ':', a non-empty group id, a topic id, a
 * partition index of 0 or more).
 */
export function parseShareCoordinatorKey(key: string): ShareStateKey | null {
  const parts = key.split(':');
  if (parts.length !== 3) return null;
  const [groupId, topicId, p] = parts as [string, string, string];
  if (groupId === '' || !isKafkaTopicId(topicId) || !/^\d+$/.test(p)) return null;
  const partition = Number(p);
  if (partition > 0x7fffffff) return null;
  return { groupId, topicId, partition };
}

/** The __share_group_state partition of a coordinator key: Utils.abs(key.hashCode) % numPartitions, the hash groups use. */
export function shareStatePartitionFor(coordinatorKey: string, numPartitions: number): number {
  return offsetsPartitionFor(coordinatorKey, numPartitions);
}

export type ShareCoordinatorMsg =
  /**
   * Kafka's ReadShareGroupState: the share partition's state. A key never written answers
   * errorCode NONE, startOffset -1 and no batches (uninitialized). A leader epoch older than the
   * one stored is FENCED_LEADER_EPOCH; a newer one is recorded (written) before the answer.
   * -1: no leader epoch (neither checked nor recorded).
   */
  | { type: 'ReadShareGroupState'; groupId: string; topicId: string; partition: number; leaderEpoch: number }
  /**
   * Kafka's WriteShareGroupState: the batches are laid over the stored ones (per offset the
   * higher delivery count, then state, wins; runs below the start offset dropped, as Kafka's
   * PersisterStateBatchCombiner), answered once written to the ISR. startOffset -1 keeps the
   * stored start offset. A leader epoch below the stored one is FENCED_LEADER_EPOCH, a state
   * epoch below the stored one FENCED_STATE_EPOCH.
   */
  | { type: 'WriteShareGroupState'; groupId: string; topicId: string; partition: number; leaderEpoch: number; stateEpoch: number; startOffset: number; stateBatches: ShareStateBatch[] }
  /** Kafka's DeleteShareGroupState: the share partition's state is removed (tombstones written); a key without state answers NONE. */
  | { type: 'DeleteShareGroupState'; groupId: string; topicId: string; partition: number }
  /**
   * Kafka's InitializeShareGroupState (4.1): a fresh state at this state epoch and start offset,
   * its batches cleared. A state epoch below the stored one is FENCED_STATE_EPOCH.
   */
  | { type: 'InitializeShareGroupState'; groupId: string; topicId: string; partition: number; stateEpoch: number; startOffset: number }
  /** Kafka's ReadShareGroupStateSummary (admin offsets): the state epoch, leader epoch and start offset; nothing recorded. */
  | { type: 'ReadShareGroupStateSummary'; groupId: string; topicId: string; partition: number; leaderEpoch: number }
  /**
   * From the local broker: this broker now leads / no longer leads a __share_group_state
   * partition. `numPartitions`: the topic's partition count as the broker's metadata knows it.
   */
  | { type: 'BecomeShareCoordinator'; partition: number; leaderEpoch: number; numPartitions?: number }
  | { type: 'ResignShareCoordinator'; partition: number; leaderEpoch: number }
  /**
   * A share group was deleted (DeleteGroups, from every broker's share coordinator): every state
   * of the group this coordinator holds is removed (tombstones written). Answered at once with
   * how many keys it is removing (ShareGroupStatesDeleted).
   */
  | { type: 'DeleteShareGroupStates'; groupId: string }
  /**
   * Introspection for tests and admin tools: the partitions owned and every state they hold, or
   * only the states of `groupId` (the admin's listing of a share group's offsets).
   */
  | { type: 'DescribeShareCoordinator'; groupId?: string | null }
  // internal (the coordinator sends these to itself)
  /** A replica read of a partition being loaded came back. */
  | {
      type: 'ShareLoadRead';
      partition: number;
      loadId: number;
      fetchOffset: number;
      errorCode: number;
      errorMessage?: string;
      logStartOffset: number;
      logEndOffset: number;
      records: Uint8Array;
      /** The broker has no replica of the partition: the load is given up. */
      noReplica?: boolean;
    }
  /** Read the next range of a partition being loaded (after a backoff). */
  | { type: 'ShareLoadNext'; partition: number; loadId: number }
  /** An append of a key's record settled (errorCode NONE: replicated to the ISR). */
  | { type: 'ShareAppendDone'; appendId: number; errorCode: number; errorMessage?: string };

export interface ReadShareGroupStateResult {
  type: 'ReadShareGroupStateResult';
  errorCode: number;
  errorMessage?: string;
  /** 0 for a key never written; -1 on an error. */
  stateEpoch: number;
  /** -1: uninitialized (or an error). */
  startOffset: number;
  stateBatches: ShareStateBatch[];
}

export interface WriteShareGroupStateResult {
  type: 'WriteShareGroupStateResult';
  errorCode: number;
  errorMessage?: string;
}

export interface DeleteShareGroupStateResult {
  type: 'DeleteShareGroupStateResult';
  errorCode: number;
  errorMessage?: string;
}

export interface InitializeShareGroupStateResult {
  type: 'InitializeShareGroupStateResult';
  errorCode: number;
  errorMessage?: string;
}

export interface ReadShareGroupStateSummaryResult {
  type: 'ReadShareGroupStateSummaryResult';
  errorCode: number;
  errorMessage?: string;
  /** 0 for a key never written; -1 on an error. */
  stateEpoch: number;
  /** -1 when none is known. */
  leaderEpoch: number;
  /** -1: uninitialized (or an error). */
  startOffset: number;
}

export interface ShareGroupStatesDeleted {
  type: 'ShareGroupStatesDeleted';
  errorCode: number;
  keys: number;
}

export type ShareCoordinatorReply = ReadShareGroupStateResult | WriteShareGroupStateResult | DeleteShareGroupStateResult | InitializeShareGroupStateResult | ReadShareGroupStateSummaryResult;

export interface DescribedShareState {
  groupId: string;
  topicId: string;
  partition: number;
  /** Its __share_group_state partition. */
  statePartition: number;
  snapshotEpoch: number;
  stateEpoch: number;
  leaderEpoch: number;
  startOffset: number;
  stateBatches: ShareStateBatch[];
  /** Requests waiting behind the key's append in flight. */
  queued: number;
}

export interface ShareCoordinatorDescription {
  type: 'ShareCoordinatorDescription';
  brokerId: number;
  numPartitions: number;
  partitions: { partition: number; coordinatorEpoch: number; status: 'Loading' | 'Active'; keys: number }[];
  states: DescribedShareState[];
  /** Appends to __share_group_state not yet settled. */
  pendingAppends: number;
}
