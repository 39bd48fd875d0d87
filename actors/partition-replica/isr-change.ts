/**
 * What a leader does with the controller's answer to its AlterPartition (an ISR change), as
 * Kafka's Partition.handleAlterPartitionUpdate / handleAlterPartitionError decide it.
 *
 * While a change is pending the leader counts the larger of the committed and the proposed ISR
 * toward the high watermark ("maximal ISR", KIP-497). It may only fall back to the committed ISR
 * when it knows the proposal was not applied; when it cannot know, or knows that it was applied
 * but it no longer leads, it keeps waiting. Falling back too early lets it acknowledge acks=all
 * records alone while the controller has already handed the leadership to a replica that does
 * not have them (a reassignment completed by that very change).
 *
 *   pending --NONE, same leader epoch, still leader--------------> committed (the answer's state)
 *   pending --INVALID_UPDATE_VERSION with the current state------> committed (our partition epoch
 *             was behind: an earlier answer was lost; that state is the committed one)
 *   pending --INELIGIBLE_REPLICA, OPERATION_NOT_ATTEMPTED,
 *             INVALID_REQUEST (explicitly not applied)-----------> rejected (back to the committed ISR)
 *   pending --NEW_LEADER_ELECTED, NONE with another leader/epoch,
 *             FENCED_LEADER_EPOCH, NOT_LEADER_OR_FOLLOWER,
 *             STALE_BROKER_EPOCH, UNKNOWN_TOPIC_OR_PARTITION-----> awaitState (stays pending until
 *             the controller's LeaderAndIsr or StopReplica replaces the state)
 *   pending --anything else (timeouts, NOT_CONTROLLER, storage)--> retry (the same proposal, later)
 */
import { ErrorCode } from '../../src/protocol/errors.js';
import type { LeaderAndIsrPartition } from '../broker/control-messages.js';

export type IsrChangeOutcome =
  | { kind: 'committed'; state: LeaderAndIsrPartition }
  | { kind: 'rejected' }
  | { kind: 'awaitState' }
  | { kind: 'retry' };

/** Errors after which the controller will send this broker a newer partition state (or none is due). */
const AWAIT_STATE: ReadonlySet<number> = new Set([
  ErrorCode.NEW_LEADER_ELECTED,
  ErrorCode.FENCED_LEADER_EPOCH,
  ErrorCode.NOT_LEADER_OR_FOLLOWER,
  ErrorCode.STALE_BROKER_EPOCH,
  ErrorCode.BROKER_NOT_AVAILABLE,
  ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  ErrorCode.INVALID_UPDATE_VERSION,
]);

/** Errors by which the controller says the change was not applied and our partition epoch is current. */
const NOT_APPLIED: ReadonlySet<number> = new Set([ErrorCode.INELIGIBLE_REPLICA, ErrorCode.OPERATION_NOT_ATTEMPTED, ErrorCode.INVALID_REQUEST]);

/**
 * The outcome of an AlterPartition answer for the leader `me` at `leaderEpoch`; `state` is the
 * partition state the controller sent with it (on success, and with INVALID_UPDATE_VERSION).
 */
export function isrChangeOutcome(errorCode: number, state: LeaderAndIsrPartition | null, me: number, leaderEpoch: number): IsrChangeOutcome {
  const ours = state !== null && state.leader === me && state.leaderEpoch === leaderEpoch;
  if (errorCode === ErrorCode.NONE) return ours ? { kind: 'committed', state } : { kind: 'awaitState' };
  if (errorCode === ErrorCode.INVALID_UPDATE_VERSION && ours) return { kind: 'committed', state };
  if (NOT_APPLIED.has(errorCode)) return { kind: 'rejected' };
  if (AWAIT_STATE.has(errorCode)) return { kind: 'awaitState' };
  return { kind: 'retry' };
}
