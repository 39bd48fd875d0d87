/**
 * The transactional producer's requests to coordinators, each with Kafka's TransactionManager
 * retries: find the transaction coordinator (FindCoordinator, key type transaction) and ask it
 * (InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn, EndTxn); find the group's coordinator
 * and ask it TxnOffsetCommit. NOT_COORDINATOR and COORDINATOR_NOT_AVAILABLE (or no answer) find
 * the coordinator again; COORDINATOR_LOAD_IN_PROGRESS and CONCURRENT_TRANSACTIONS back off and
 * retry; within `retries` attempts and max.block.ms. Every other answer is returned as it is.
 *
 * These functions hold no producer state: the producer actor passes what a request needs and
 * gets the outcome back as a message to itself.
 */
import type { BrokerMsg } from '../broker/messages.js';
import { coordinatorPath, type CoordinatorMsg, type FindCoordinatorResponse, type OffsetCommitPartition, type TxnOffsetCommitResponse } from '../group-coordinator/messages.js';
import { txnCoordinatorPath, type TxnCoordinatorMsg, type TxnCoordinatorReply } from '../txn-coordinator/messages.js';
import type { TxnGroupMember } from './messages.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import type { Clock } from '../../src/runtime/clock.js';
import type { AskOptions } from '../../src/runtime/actor-definition.js';
import { isFailure, type ActorRef, type Failure } from '../../src/runtime/types.js';

/** What a request needs from the producer (a snapshot of its config and the means to ask). */
export interface TxnRpcEnv {
  ask<R>(to: ActorRef<never>, msg: unknown, opts: AskOptions): Promise<R | Failure>;
  clock: Clock;
  /** A broker to ask FindCoordinator (the producer's metadata rotation). */
  anyBroker(): ActorRef<BrokerMsg>;
  retries: number;
  retryBackoffMs: number;
  requestTimeoutMs: number;
  /** max.block.ms: how long one transactional operation may take in all. */
  maxBlockMs: number;
}

export interface TxnRpcResult {
  errorCode: number;
  errorMessage?: string;
  producerId: number;
  producerEpoch: number;
  /** The transaction coordinator last found (to keep for the next request), null if none. */
  coordinator: ActorRef<TxnCoordinatorMsg> | null;
}

/** Answers that mean: the coordinator is elsewhere (find it again). */
const REFIND = new Set<number>([ErrorCode.NOT_COORDINATOR, ErrorCode.COORDINATOR_NOT_AVAILABLE]);
/** Answers that mean: the coordinator is busy (back off and ask it again). */
const BACK_OFF = new Set<number>([ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.CONCURRENT_TRANSACTIONS]);

function sleep(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.setTimeout(resolve, ms));
}

function askOpts(env: TxnRpcEnv): AskOptions {
  // the coordinators answer once their record is in the ISR (request.timeout.ms) or refused
  return { timeoutMs: env.requestTimeoutMs + 5_000 };
}

/** FindCoordinator on any broker: the coordinator's broker id and node, or the error. */
async function findCoordinator(env: TxnRpcEnv, key: string, keyType: 'group' | 'transaction'): Promise<{ brokerId: number; node: string } | { errorCode: number; errorMessage: string }> {
  const r = await env.ask<FindCoordinatorResponse>(env.anyBroker() as ActorRef<never>, { type: 'FindCoordinator', key, keyType } satisfies BrokerMsg, askOpts(env));
  if (isFailure(r)) return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, errorMessage: r.message };
  if (r.errorCode !== ErrorCode.NONE) return { errorCode: r.errorCode, errorMessage: r.errorMessage ?? `FindCoordinator(${keyType} ${key}) failed` };
  return { brokerId: r.brokerId, node: r.node };
}

/**
 * Runs `attempt` until it gives an answer that is not retriable here, or the attempts or
 * max.block.ms run out (then the last answer). `attempt` returns the answer and whether to find
 * the coordinator again before the next try.
 */
async function withRetries<T extends { errorCode: number }>(env: TxnRpcEnv, attempt: () => Promise<T>, retriable: (r: T) => boolean): Promise<T> {
  const deadline = env.clock.now() + env.maxBlockMs;
  for (let n = 0; ; n++) {
    const r = await attempt();
    if (!retriable(r) || n >= env.retries || env.clock.now() + env.retryBackoffMs >= deadline) return r;
    await sleep(env.clock, env.retryBackoffMs);
  }
}

/** Asks the transaction coordinator of `transactionalId` (found first when `coordinator` is null). */
export async function askTxnCoordinator(env: TxnRpcEnv, coordinator: ActorRef<TxnCoordinatorMsg> | null, msg: TxnCoordinatorMsg & { transactionalId: string }): Promise<TxnRpcResult> {
  let coord = coordinator;
  return withRetries<TxnRpcResult>(
    env,
    async () => {
      if (!coord) {
        const found = await findCoordinator(env, msg.transactionalId, 'transaction');
        if ('errorCode' in found) return { errorCode: REFIND.has(found.errorCode) || BACK_OFF.has(found.errorCode) ? ErrorCode.COORDINATOR_NOT_AVAILABLE : found.errorCode, errorMessage: found.errorMessage, producerId: -1, producerEpoch: -1, coordinator: null };
        coord = { node: found.node, path: txnCoordinatorPath(found.brokerId) };
      }
      const r = await env.ask<TxnCoordinatorReply>(coord as ActorRef<never>, msg, askOpts(env));
      const out: TxnRpcResult = isFailure(r)
        ? { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, errorMessage: r.message, producerId: -1, producerEpoch: -1, coordinator: coord }
        : { errorCode: r.errorCode, producerId: r.producerId ?? -1, producerEpoch: r.producerEpoch ?? -1, coordinator: coord };
      if (!isFailure(r) && r.errorMessage) out.errorMessage = r.errorMessage;
      if (REFIND.has(out.errorCode)) {
        coord = null;
        out.coordinator = null;
      }
      return out;
    },
    (r) => REFIND.has(r.errorCode) || BACK_OFF.has(r.errorCode),
  );
}

/**
 * TxnOffsetCommit to the group's coordinator (found with FindCoordinator). Partitions answered
 * with a retriable error are sent again; the first error that is not retriable is returned.
 */
export async function txnOffsetCommit(
  env: TxnRpcEnv,
  req: {
    transactionalId: string;
    groupId: string;
    producerId: number;
    producerEpoch: number;
    member: TxnGroupMember | null;
    topics: { name: string; partitions: OffsetCommitPartition[] }[];
    /** Transaction version 2 (KIP-890 part 2): no AddOffsetsToTxn was sent; the offsets partition is added on the way. */
    transactionV2?: boolean;
  },
): Promise<{ errorCode: number; errorMessage?: string }> {
  let coord: ActorRef<CoordinatorMsg> | null = null;
  let topics = req.topics;
  return withRetries<{ errorCode: number; errorMessage?: string }>(
    env,
    async () => {
      if (!coord) {
        const found = await findCoordinator(env, req.groupId, 'group');
        if ('errorCode' in found) return { errorCode: REFIND.has(found.errorCode) || BACK_OFF.has(found.errorCode) ? ErrorCode.COORDINATOR_NOT_AVAILABLE : found.errorCode, errorMessage: found.errorMessage };
        coord = { node: found.node, path: coordinatorPath(found.brokerId) };
      }
      const msg: CoordinatorMsg = { type: 'TxnOffsetCommit', transactionalId: req.transactionalId, groupId: req.groupId, producerId: req.producerId, producerEpoch: req.producerEpoch, generationId: req.member?.generationId ?? -1, memberId: req.member?.memberId ?? '', groupInstanceId: req.member?.groupInstanceId ?? null, topics };
      if (req.transactionV2 === true) msg.transactionV2 = true;
      const r = await env.ask<TxnOffsetCommitResponse>(coord as ActorRef<never>, msg, askOpts(env));
      if (isFailure(r)) {
        coord = null;
        return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, errorMessage: r.message };
      }
      if (r.errorCode !== ErrorCode.NONE) {
        if (REFIND.has(r.errorCode)) coord = null;
        return { errorCode: r.errorCode, errorMessage: `TxnOffsetCommit for group ${req.groupId}` };
      }
      // keep only the partitions still to commit; the first refusal that is not retriable ends it
      const again: { name: string; partitions: OffsetCommitPartition[] }[] = [];
      let retryCode: number = ErrorCode.NONE;
      for (const t of r.topics) {
        for (const p of t.partitions) {
          if (p.errorCode === ErrorCode.NONE) continue;
          if (!REFIND.has(p.errorCode) && !BACK_OFF.has(p.errorCode) && p.errorCode !== ErrorCode.UNKNOWN_TOPIC_OR_PARTITION && p.errorCode !== ErrorCode.REQUEST_TIMED_OUT) {
            return { errorCode: p.errorCode, errorMessage: `TxnOffsetCommit of ${t.name}-${p.partition} for group ${req.groupId}` };
          }
          if (REFIND.has(p.errorCode)) coord = null;
          retryCode = p.errorCode;
          const sent = topics.find((x) => x.name === t.name)?.partitions.find((x) => x.partition === p.partition);
          if (!sent) continue;
          let entry = again.find((x) => x.name === t.name);
          if (!entry) again.push((entry = { name: t.name, partitions: [] }));
          entry.partitions.push(sent);
        }
      }
      if (again.length > 0) topics = again;
      return retryCode === ErrorCode.NONE ? { errorCode: ErrorCode.NONE } : { errorCode: retryCode, errorMessage: `TxnOffsetCommit for group ${req.groupId}` };
    },
    (r) => REFIND.has(r.errorCode) || BACK_OFF.has(r.errorCode) || r.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION || r.errorCode === ErrorCode.REQUEST_TIMED_OUT,
  );
}
