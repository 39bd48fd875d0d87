/**
 * The transactional producer's state (transactional.id), as Kafka's TransactionManager keeps it.
 *
 * Phases and their transitions:
 *   Uninitialized -> Initializing (BeginTxn: InitProducerId) -> InTransaction
 *   Initializing -> Uninitialized (InitProducerId failed retriably) | FatalError
 *   Ready -> InTransaction (BeginTxn)
 *   InTransaction -> Committing (EndTxn commit: flush, then EndTxn) -> Ready
 *   InTransaction | AbortableError -> Aborting (EndTxn abort: unsent batches dropped, in-flight
 *     ones awaited, then EndTxn) -> Ready, or Uninitialized when a sequence gap needs a new epoch
 *   InTransaction | Committing -> AbortableError (a batch, AddPartitionsToTxn or sendOffsets failed)
 *   any -> FatalError (fenced, not authorized, invalid state): nothing more is accepted
 *
 * Each transaction speaks the transaction version the cluster finalized when it first needed
 * one (its first batch or sendOffsets; Kafka's client reads it from ApiVersions): with 2 (KIP-890
 * part 2) no AddPartitionsToTxn nor AddOffsetsToTxn is sent (the brokers add the partitions its
 * batches and offsets reach) and EndTxn (v5) answers the bumped epoch the producer goes on with.
 */
import { ErrorCode } from '../../src/protocol/errors.js';
import { assertNever } from '../../src/runtime/assert-never.js';
import type { ReplyToken } from '../../src/runtime/actor-definition.js';
import type { ActorRef } from '../../src/runtime/types.js';
import type { TxnCoordinatorMsg } from '../txn-coordinator/messages.js';
import type { TxnGroupMember, TxnOffsets } from './messages.js';

export type TxnPhase = 'Uninitialized' | 'Initializing' | 'Ready' | 'InTransaction' | 'Committing' | 'Aborting' | 'AbortableError' | 'FatalError';

/** A partition's place in the ongoing transaction. */
export type TxnPartitionState = 'None' | 'Adding' | 'Added';

export interface TxnManager<Q> {
  transactionalId: string;
  phase: TxnPhase;
  coordinator: ActorRef<TxnCoordinatorMsg> | null;
  /** The cause of AbortableError or FatalError. */
  error: { errorCode: number; message: string } | null;
  /** Partitions waiting for the next AddPartitionsToTxn. */
  pendingAdd: Q[];
  /** Partitions in the AddPartitionsToTxn in flight (empty: none in flight). */
  adding: Q[];
  /** Partitions of the ongoing transaction (Adding or Added). */
  partitions: Q[];
  /** AddOffsetsToTxn succeeded in the ongoing transaction: EndTxn must be sent even with no partitions. */
  offsetsAdded: boolean;
  /** The sendOffsets whose AddOffsetsToTxn is in flight, to commit once it succeeds. */
  offsets: { groupId: string; topics: TxnOffsets[]; member: TxnGroupMember | null } | null;
  /** The transaction version of the ongoing transaction (0 or 2), null until it is first needed. */
  version: number | null;
  /** The BeginTxn, SendOffsetsToTxn or EndTxn being answered. */
  token: ReplyToken | undefined;
  /** A coordinator request of BeginTxn, SendOffsetsToTxn or EndTxn is in flight. */
  rpcInFlight: boolean;
}

export function newTxnManager<Q>(transactionalId: string): TxnManager<Q> {
  return {
    transactionalId,
    phase: 'Uninitialized',
    coordinator: null,
    error: null,
    pendingAdd: [],
    adding: [],
    partitions: [],
    offsetsAdded: false,
    offsets: null,
    version: null,
    token: undefined,
    rpcInFlight: false,
  };
}

/** Errors after which this producer can make no more transactions (Kafka's fatal errors). */
const FATAL = new Set<number>([
  ErrorCode.PRODUCER_FENCED,
  ErrorCode.INVALID_PRODUCER_EPOCH,
  ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
  ErrorCode.INVALID_PRODUCER_ID_MAPPING,
  ErrorCode.INVALID_TXN_STATE,
  ErrorCode.UNSUPPORTED_VERSION,
  ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
]);

export function isFatalTxnError(errorCode: number): boolean {
  return FATAL.has(errorCode);
}

/** Why an operation is refused in `phase` (INVALID_TXN_STATE, or the error the producer is stuck in). */
export function refusal<Q>(txn: TxnManager<Q>, what: string): { errorCode: number; message: string } {
  if ((txn.phase === 'FatalError' || txn.phase === 'AbortableError') && txn.error) {
    const hint = txn.phase === 'AbortableError' ? 'the transaction must be aborted' : 'the producer can make no more transactions';
    return { errorCode: txn.error.errorCode, message: `${what}: ${hint} (${txn.error.message})` };
  }
  return { errorCode: ErrorCode.INVALID_TXN_STATE, message: `${what}: ${describePhase(txn.phase)}` };
}

function describePhase(phase: TxnPhase): string {
  switch (phase) {
    case 'Uninitialized':
    case 'Ready':
      return 'no transaction is in progress (call transaction() first)';
    case 'Initializing':
      return 'the producer is initialising its transactional id';
    case 'InTransaction':
      return 'a transaction is already in progress';
    case 'Committing':
      return 'the transaction is committing';
    case 'Aborting':
      return 'the transaction is aborting';
    case 'AbortableError':
      return 'the transaction must be aborted';
    case 'FatalError':
      return 'the producer can make no more transactions';
    default:
      return assertNever(phase);
  }
}
