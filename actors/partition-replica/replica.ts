/**
 * The partition replica: owns one partition's log on one broker (the only code that touches it).
 * As leader it writes produced batches in the topic's compression.type (recompress.ts), and on a
 * compacted topic (cleanup.policy has compact) refuses records without a key, as Kafka does.
 *
 * Owned state: the PartitionLog; the partition state from the controller (leader, epochs,
 * replicas, ISR); as leader, each follower's log end offset, log start offset and last caught-up
 * time, the ISR change in flight (with eligible leader replicas on, LeaderAndIsr's
 * eligibleLeaderReplicasEnabled, the high watermark stays put while the ISR is below
 * min.insync.replicas, KIP-966), the acks=all purgatory, the DeleteRecords waiting for the
 * followers (delayed-delete-records.ts) and the transaction verifications in progress; the
 * reads waiting for a wake-up (with the high watermark a follower's fetch sent, KIP-1166,
 * follower-high-watermark.ts); the move of its log into another log dir in progress.
 * Handles: Produce, ReplicaRead, ListOffsets, OffsetsForLeaderEpoch, DeleteRecords, TopicConfigChanged,
 * BrokerDefaultsChanged, BecomeLeaderOrFollower,
 * AppendAsFollower, TruncateForDivergence, WriteTxnMarker, StopReplica, AlterPartitionResult, RetryAlterPartition, CheckIsr,
 * ExpireProduces, ExpireDeleteRecords, DescribeReplica, DescribeProducers (leader or follower), StartTxnVerification,
 * AlterLogDir (moves the log to another log dir of the broker as Kafka does: copied into a future
 * log there a chunk per turn of the mailbox, CopyToFutureLog, while it goes on serving, then swapped;
 * while the broker's replica.alter.log.dirs.io.max.bytes.per.second is exceeded the next chunk
 * waits on a timer, and BrokerDefaultsChanged has a waiting move look at the throttle again).
 * Emits: ProduceResponse (acks 1/all), ReplicaReadResult, ListOffsetsResult, EpochEndOffset,
 * AppendAsFollowerResult, ReplicaDescription, ProducersDescription, TxnVerificationStarted, LogDirAltered; AlterPartition to the controller (ISR shrink and
 * expand); PartitionAdvanced to its broker when data or the high watermark moves after a watch
 * (with the watching reads done again, when they find records, or, for a follower's fetch that
 * sent an older high watermark than ours, KIP-1166, when the high watermark moved past it).
 */
import { ErrorCode } from '../../src/protocol/errors.js';
import { assertNever } from '../../src/runtime/assert-never.js';
import type { ActorContext, BaseContext } from '../../src/runtime/actor-definition.js';
import { defineActor } from '../../src/runtime/actor-definition.js';
import type { ActorRef } from '../../src/runtime/types.js';
import { isFailure } from '../../src/runtime/types.js';
import type { LogDirMove, LogDirs } from '../../src/storage/log-dirs.js';
import { LogState, type PartitionLog, type ReadOptions, type ReadResult } from '../../src/storage/partition-log.js';
import { LOG_CONFIG_KEYS, deletesByRetention, isCompacted, logConfigToKafka, parseLogConfig } from '../../src/storage/log-config.js';
import { appendedBatch, loadProducerState, producerBatchAt, readProducerBatches, type ProducerBatch, type ProducerStateTable, type SequenceCheck } from '../../src/storage/producer-state.js';
import { PRODUCER_ID_OFFSET, RECORD_BATCH_OVERHEAD, baseOffsetOf, batchSizeAt, iterateBatches, lastOffsetOf, readInt64BE } from '../../src/protocol/batch-header.js';
import { UnsupportedCompressionError, compressionName, isLeveledCodec } from '../../src/protocol/compression.js';
import { DecompressedSizeError } from '../../src/protocol/decompressed-size.js';
import { recompressBatches, topicCodec } from '../../src/protocol/recompress.js';
import { firstKeylessRecord } from '../../src/protocol/record-keys.js';
import { CorruptRecordError } from '../../src/protocol/record-batch.js';
import { LEADER_AND_ISR_PARTITION, type LeaderAndIsrPartition } from '../broker/control-messages.js';
import type { CompressionLevelDefaults } from '../broker/broker-config.js';
import type { BrokerMsg } from '../broker/messages.js';
import type { ControllerMsg, ControllerReply } from '../controller/messages.js';
import { ControlType, encodeTxnMarker, isControlBatch } from '../../src/protocol/control-records.js';
import { DeleteRecordsPurgatory } from './delayed-delete-records.js';
import { ProducePurgatory, type DelayedProduce } from './delayed-produce.js';
import { NO_GUARD, TxnVerifications, transactionalProducerOf } from './txn-verification.js';
import { isrChangeOutcome } from './isr-change.js';
import { selectReadReplica, type ReplicaView } from './read-replica-selector.js';
import { NO_REPLICA_HIGH_WATERMARK, followerHighWatermarkBehind } from './follower-high-watermark.js';
import {
  EARLIEST_LOCAL_TIMESTAMP,
  EARLIEST_PENDING_UPLOAD_TIMESTAMP,
  EARLIEST_TIMESTAMP,
  LATEST_TIERED_TIMESTAMP,
  LATEST_TIMESTAMP,
  MAX_TIMESTAMP,
  type AdvancedRead,
  type AppendAsFollowerResult,
  type DeleteRecordsResult,
  type EpochEndOffsetResult,
  type ListOffsetsResult,
  type ProduceResponse,
  type ProducersDescription,
  type TxnVerificationStarted,
  type ReplicaDescription,
  type LogDirAltered,
  type ReplicaMsg,
  type ReplicaReadResult,
  type ReplicaRole,
} from './messages.js';

export interface ReplicaArgs {
  brokerId: number;
  topic: string;
  partition: number;
  /** The broker's log dirs: the log is in one of them. */
  logs: LogDirs;
  broker: ActorRef;
  controller: ActorRef<ControllerMsg>;
  /** The broker's current epoch (AlterPartition must carry it). */
  brokerEpoch: () => number;
  /** Broker defaults: replica.lag.time.max.ms and min.insync.replicas. */
  replicaLagTimeMaxMs: number;
  defaultMinInsyncReplicas: number;
  /** The broker's compression.type, for a topic without its own ('producer' when absent). */
  defaultCompressionType?: string;
  /** The broker's compression.<codec>.level, for a topic without its own (each codec's default when absent). */
  defaultCompressionLevels?: CompressionLevelDefaults;
  /** producer.id.expiration.ms: how long an idle idempotent producer's sequence state is kept. */
  producerIdExpirationMs?: number;
  /**
   * With the broker's replica.selector.class set to the rack-aware selector: each broker's rack,
   * so that as leader this replica sends consumers of another rack to a follower in theirs.
   */
  readReplicaSelection?: { rackOf: (brokerId: number) => string | null } | null;
  /** Whether a broker is live (registered, not fenced): a dead follower does not hold the low watermark back. Absent: all are. */
  isBrokerAlive?: (brokerId: number) => boolean;
  initial: LeaderAndIsrPartition;
}

interface FollowerState {
  /** -1 until the follower's first fetch under this leadership. */
  logEndOffset: number;
  /** The follower's log start offset as its last fetch told it (-1 until one did). */
  logStartOffset: number;
  lastCaughtUpTimeMs: number;
  lastFetchTimeMs: number;
  lastFetchLeaderLogEndOffset: number;
}

export interface ReplicaState {
  role: ReplicaRole;
  log: PartitionLog;
  p: LeaderAndIsrPartition;
  /** The ISR the controller committed. */
  isr: number[];
  /**
   * An ISR we asked the controller for and do not know the fate of yet (see isr-change.ts): it
   * stays until an answer says it was or was not applied, or a new state from the controller.
   */
  pendingIsr: number[] | null;
  /** Numbers our AlterPartition proposals, so a late answer to an older one is told apart. */
  isrProposal: number;
  pendingIsrStatus: 'sent' | 'awaitingState' | 'retrying' | null;
  followers: Map<number, FollowerState>;
  /** Offset where this leader's epoch started: a follower must reach it to join the ISR. */
  leaderEpochStartOffset: number;
  /** Followers whose addition the controller refused, and until when not to ask again. */
  expansionRefusedUntil: Map<number, number>;
  purgatory: ProducePurgatory;
  /** DeleteRecords waiting for the followers to delete too (leader only). */
  deletes: DeleteRecordsPurgatory;
  /** When the armed expire-produces timer fires (valid while it is active). */
  expiryDue: number;
  /** Reads that asked to be told of the next advance (each told once, then dropped). */
  watchers: Watcher[];
  /**
   * The buffers the append being handled just wrote, while its handler runs (they are the
   * request's, lent for it): the watchers' reads done again are answered from them.
   */
  appended: readonly Buffer[] | null;
  /**
   * Idempotent producers' sequences (leader only). Built from the log at the first idempotent
   * produce of a leadership; dropped when leadership ends or the log is truncated.
   */
  producers: ProducerStateTable | null;
  /**
   * A follower's producers for DescribeProducers (a follower's appends keep no table): read from
   * the log once, then on from where the last answer read to. Dropped with `producers`.
   */
  followerProducers: { table: ProducerStateTable; readTo: number } | null;
  /** Transaction verifications in progress (leader only; KIP-890). */
  verifications: TxnVerifications;
  /** When producers idle past producer.id.expiration.ms were last dropped. */
  producersExpiredAtMs: number;
  /** The move of the log into another log dir of the broker in progress (AlterLogDir), or null. */
  move: LogDirMove | null;
  /** The broker's defaults for topics without their own (they change with dynamic broker configs). */
  brokerDefaults: { minInsyncReplicas: number; compressionType: string | undefined; producerIdExpirationMs?: number; compressionLevels?: CompressionLevelDefaults };
  args: ReplicaArgs;
}

const ISR_CHECK_TIMER = 'isr-check';
const ALTER_ISR_RETRY_TIMER = 'alter-isr-retry';
/** A proposal whose answer did not say whether it was applied is sent again after this long. */
const ALTER_ISR_RETRY_MS = 100;

/** The log's config: the topic's log overrides over the broker's current defaults (applied at once). */
function applyLogConfig(s: ReplicaState, ctx: BaseContext<ReplicaMsg>): void {
  const overrides: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s.p.config)) if (LOG_CONFIG_KEYS.includes(k)) overrides[k] = v;
  try {
    s.log.updateConfig(parseLogConfig(overrides, s.args.logs.defaults));
  } catch (err) {
    ctx.log.warn('topic config not applied to the log', { reason: (err as Error).message });
  }
}
/** After the controller refuses to add a follower to the ISR, wait this long before asking again. */
const EXPANSION_RETRY_MS = 1_000;
const EXPIRE_TIMER = 'expire-produces';
/** The next chunk of a move between log dirs. */
const COPY_TIMER = 'copy-to-future-log';
const EMPTY = new Uint8Array(0);

function asBuffer(u8: Uint8Array): Buffer {
  return Buffer.isBuffer(u8) ? u8 : Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength);
}

function minInsync(s: ReplicaState): number {
  const v = Number(s.p.config['min.insync.replicas'] ?? s.brokerDefaults.minInsyncReplicas);
  return Number.isInteger(v) && v >= 1 ? v : 1;
}

function produceError(errorCode: number, errorMessage: string, logStartOffset = -1): ProduceResponse {
  return { type: 'ProduceResponse', errorCode, errorMessage, baseOffset: -1, logAppendTime: -1, logStartOffset };
}

/** Checks the leader epoch a client or follower believes in against ours. */
function validateLeaderEpoch(s: ReplicaState, currentLeaderEpoch: number): number | null {
  if (currentLeaderEpoch < 0) return null;
  if (currentLeaderEpoch < s.p.leaderEpoch) return ErrorCode.FENCED_LEADER_EPOCH;
  if (currentLeaderEpoch > s.p.leaderEpoch) return ErrorCode.UNKNOWN_LEADER_EPOCH;
  return null;
}

function readResult(s: ReplicaState, errorCode: number, records: Uint8Array = EMPTY, errorMessage?: string): ReplicaReadResult {
  const r: ReplicaReadResult = {
    type: 'ReplicaReadResult',
    errorCode,
    highWatermark: s.log.highWatermark,
    logStartOffset: s.log.logStartOffset,
    logEndOffset: s.log.logEndOffset,
    records,
  };
  if (errorMessage) r.errorMessage = errorMessage;
  // only a log with a transaction open below its high watermark has an LSO of its own
  if (s.log.firstUnstableOffset !== null) r.lastStableOffset = s.log.lastStableOffset;
  return r;
}

/** A consumer's records read with read_committed: the aborted transactions among them. */
function withAbortedTransactions(s: ReplicaState, r: ReplicaReadResult, fetchOffset: number): ReplicaReadResult {
  if (r.records.length === 0 || !s.log.hasTransactions) return r;
  let end = fetchOffset;
  for (let pos = 0; pos < r.records.length; pos += batchSizeAt(r.records, pos)) end = lastOffsetOf(r.records, pos) + 1;
  const aborted = s.log.abortedTransactions(fetchOffset, end);
  if (aborted.length > 0) r.abortedTransactions = aborted.map((a) => ({ producerId: a.producerId, firstOffset: a.firstOffset }));
  return r;
}

/** A read that found too little and waits to be told of the next advance. */
interface Watcher {
  /** The broker's fetch id, -1 when it gave none. */
  fetchId: number;
  replicaId: number;
  fetchOffset: number;
  maxBytes: number;
  /** The leader epoch the read was checked against. */
  leaderEpoch: number;
  /** clock.now() after which its fetch has been answered anyway (Infinity: not known). */
  until: number;
  readCommitted: boolean;
  /** The high watermark a follower's fetch sent (KIP-1166), NO_REPLICA_HIGH_WATERMARK when none. */
  replicaHighWatermark: number;
}

/**
 * Watchers kept at most: a fetch answered through another partition is never withdrawn here, so
 * an idle partition polled by many fetches would otherwise collect them. The oldest go first; a
 * fetch whose watcher went still hears of the advance and reads again.
 */
const MAX_WATCHERS = 16;

/**
 * Tells the broker once that this partition moved, if a read asked to be told. Each watching
 * read is done again now, from the bytes just appended when an append woke it (no read of the
 * file at all), else at the tail (no I/O wait), and sent along when it finds records, or when
 * it is a follower's whose fetch sent a high watermark below ours (KIP-1166: the broker answers
 * it for that alone): the broker answers that fetch from it instead of asking every partition
 * again, which took two more turns of its mailbox and one of each replica's. Reads that find nothing, or that can no
 * longer be trusted as checked (another epoch, not leader), are left to the broker's re-read.
 */
function notifyWatchers(s: ReplicaState, ctx: BaseContext<ReplicaMsg>): void {
  if (s.watchers.length === 0) return;
  const watchers = s.watchers;
  s.watchers = [];
  let reads: AdvancedRead[] | undefined;
  const now = ctx.clock.now();
  for (const w of watchers) {
    const result = w.fetchId >= 0 && w.until >= now ? readAgain(s, w) : null;
    if (result) (reads ??= []).push({ fetchId: w.fetchId, result });
  }
  const msg: Extract<BrokerMsg, { type: 'PartitionAdvanced' }> = { type: 'PartitionAdvanced', topic: s.p.topic, partition: s.p.partition };
  if (reads) msg.reads = reads;
  ctx.send(s.args.broker as ActorRef<BrokerMsg>, msg);
}

/**
 * How far a read may go: a consumer's up to the high watermark (read_committed: the last stable
 * offset), a follower's to the log end.
 */
function readLimit(s: ReplicaState, replicaId: number, readCommitted = false): ReadOptions {
  if (replicaId >= 0) return {};
  return { maxOffset: readCommitted ? s.log.lastStableOffset : s.log.highWatermark };
}

/**
 * As leader, the replica a consumer in `clientRack` should read `fetchOffset` from: this one, or
 * an in-sync follower in the consumer's rack whose log reaches the offset (read-replica-selector.ts).
 */
function preferredReadReplica(s: ReplicaState, ctx: BaseContext<ReplicaMsg>, fetchOffset: number, clientRack: string, rackOf: (brokerId: number) => string | null): number {
  const me = s.args.brokerId;
  // an offset below the log start is the leader's to answer (OFFSET_OUT_OF_RANGE)
  if (fetchOffset < s.log.logStartOffset) return me;
  const now = ctx.clock.now();
  const followers: ReplicaView[] = [];
  for (const [brokerId, f] of s.followers) {
    if (!s.isr.includes(brokerId) || f.logEndOffset < fetchOffset) continue;
    followers.push({ brokerId, rack: rackOf(brokerId), logEndOffset: f.logEndOffset, timeSinceLastCaughtUpMs: now - f.lastCaughtUpTimeMs });
  }
  return selectReadReplica(clientRack, { leader: { brokerId: me, rack: rackOf(me), logEndOffset: s.log.logEndOffset, timeSinceLastCaughtUpMs: 0 }, followers });
}

/** Runs `then` (the rest of an append's handler) with the appended buffers lent to the watchers' reads. */
function withAppended(s: ReplicaState, records: Buffer | readonly Buffer[], then: () => void): void {
  s.appended = Buffer.isBuffer(records) ? [records] : records;
  try {
    then();
  } finally {
    s.appended = null;
  }
}

/**
 * A watcher's read done again at the tail, or null when it finds nothing (and is no follower's
 * whose high watermark is now behind ours) or must be checked afresh.
 */
function readAgain(s: ReplicaState, w: Watcher): Omit<ReplicaReadResult, 'type'> | null {
  const serves = s.role === 'Leader' || (s.role === 'Follower' && w.replicaId < 0);
  if (!serves || s.p.leaderEpoch !== w.leaderEpoch) return null;
  const limit = readLimit(s, w.replicaId, w.readCommitted);
  const res = (s.appended && s.log.readAppended(w.fetchOffset, s.appended, w.maxBytes, limit)) ?? s.log.readNow(w.fetchOffset, w.maxBytes, limit);
  if (!res || res.errorCode !== ErrorCode.NONE) return null;
  const records = (res as { records: Buffer }).records;
  if (records.length === 0 && !(w.replicaId >= 0 && w.replicaHighWatermark < s.log.highWatermark)) return null;
  const read = readResult(s, ErrorCode.NONE, records);
  const { type: _type, ...result } = w.readCommitted ? withAbortedTransactions(s, read, w.fetchOffset) : read;
  return result;
}

/**
 * Registers a read to be told of the next advance: a later read of the same fetch replaces it,
 * watchers past their fetch's deadline are dropped, and at most MAX_WATCHERS are kept.
 */
function watch(s: ReplicaState, ctx: BaseContext<ReplicaMsg>, m: Extract<ReplicaMsg, { type: 'ReplicaRead' }>): void {
  const fetchId = m.fetchId ?? -1;
  const now = ctx.clock.now();
  const w: Watcher = {
    fetchId,
    replicaId: m.replicaId,
    fetchOffset: m.fetchOffset,
    maxBytes: m.maxBytes,
    leaderEpoch: s.p.leaderEpoch,
    until: m.watchUntil ?? Infinity,
    readCommitted: m.readCommitted === true,
    replicaHighWatermark: m.replicaId >= 0 ? (m.replicaHighWatermark ?? NO_REPLICA_HIGH_WATERMARK) : NO_REPLICA_HIGH_WATERMARK,
  };
  const kept = s.watchers.filter((x) => x.fetchId !== fetchId && x.until >= now);
  kept.push(w);
  s.watchers = kept.length > MAX_WATCHERS ? kept.slice(kept.length - MAX_WATCHERS) : kept;
}

/** The ISR the high watermark must respect: committed plus any pending additions. */
function maximalIsr(s: ReplicaState): number[] {
  if (!s.pendingIsr) return s.isr;
  return [...new Set([...s.isr, ...s.pendingIsr])];
}

/**
 * With eligible leader replicas on (KIP-966), whether the committed ISR is below the effective
 * min.insync.replicas (at most the replication factor): the high watermark then stays where it is,
 * as Kafka's Partition.isUnderMinIsr holds it, so every record below it is on min ISR replicas
 * (ELR members among them) and an ELR member elected later has it.
 */
function heldUnderMinIsr(s: ReplicaState): boolean {
  return s.p.eligibleLeaderReplicasEnabled === true && s.isr.length < Math.min(minInsync(s), s.p.replicas.length);
}

/** HW = min LEO over the (maximal) ISR; never moves backwards, nor while heldUnderMinIsr. Completes waiting produces. */
function maybeIncrementHighWatermark(s: ReplicaState, ctx: BaseContext<ReplicaMsg>): void {
  if (s.role !== 'Leader') return;
  if (heldUnderMinIsr(s)) return;
  let hw = s.log.logEndOffset;
  for (const id of maximalIsr(s)) {
    if (id === s.args.brokerId) continue;
    const f = s.followers.get(id);
    const leo = f ? f.logEndOffset : -1;
    if (leo < hw) hw = leo;
  }
  if (hw <= s.log.highWatermark) return;
  s.log.updateHighWatermark(hw);
  notifyWatchers(s, ctx);
  completeProduces(s, ctx, s.purgatory.tryComplete(s.log.highWatermark), 'satisfied');
}

function completeProduces(
  s: ReplicaState,
  ctx: BaseContext<ReplicaMsg>,
  ops: DelayedProduce[],
  reason: 'satisfied' | 'expired' | 'aborted',
): void {
  for (const op of ops) {
    let reply: ProduceResponse;
    if (reason === 'satisfied') {
      reply =
        s.isr.length < minInsync(s)
          ? produceError(ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND, `appended, but the ISR shrank to ${s.isr.length} < min.insync.replicas ${minInsync(s)}`)
          : {
              type: 'ProduceResponse',
              errorCode: ErrorCode.NONE,
              errorMessage: null,
              baseOffset: op.baseOffset,
              logAppendTime: op.logAppendTime,
              logStartOffset: s.log.logStartOffset,
            };
    } else if (reason === 'expired') {
      reply = produceError(ErrorCode.REQUEST_TIMED_OUT, 'the ISR did not replicate the batch within the request timeout');
    } else {
      reply = produceError(ErrorCode.NOT_LEADER_OR_FOLLOWER, 'leadership moved before the batch was replicated');
    }
    ctx.replyTo(op.token, reply);
  }
}

function scheduleExpiry(s: ReplicaState, ctx: BaseContext<ReplicaMsg>): void {
  const next = s.purgatory.nextDeadline();
  if (next === undefined) {
    ctx.timers.cancel(EXPIRE_TIMER);
    return;
  }
  s.expiryDue = next;
  ctx.timers.startSingle(EXPIRE_TIMER, Math.max(0, next - ctx.clock.now()), { type: 'ExpireProduces' });
}

/** Asks the controller for a new ISR unless a change is already in flight. */
function maybeAlterIsr(s: ReplicaState, ctx: BaseContext<ReplicaMsg>, newIsr: number[]): void {
  if (s.pendingIsr || s.role !== 'Leader') return;
  s.pendingIsr = [...newIsr];
  s.isrProposal++;
  ctx.log.info('proposing ISR change', { from: s.isr, to: s.pendingIsr });
  sendAlterPartition(s, ctx);
}

/** Sends the pending ISR proposal (again, after an answer that left its fate unknown). */
function sendAlterPartition(s: ReplicaState, ctx: BaseContext<ReplicaMsg>): void {
  const sorted = s.pendingIsr;
  if (!sorted || s.role !== 'Leader') return;
  const proposal = s.isrProposal;
  s.pendingIsrStatus = 'sent';
  const req: ControllerMsg = {
    type: 'AlterPartition',
    brokerId: s.args.brokerId,
    brokerEpoch: s.args.brokerEpoch(),
    topic: s.p.topic,
    partition: s.p.partition,
    leaderEpoch: s.p.leaderEpoch,
    partitionEpoch: s.p.partitionEpoch,
    newIsr: sorted,
  };
  void ctx.ask<ControllerReply>(s.args.controller, req, { timeoutMs: 10_000 }).then((r) => {
    const errorCode = isFailure(r) ? r.errorCode : r.type === 'AlterPartitionResponse' ? r.errorCode : ErrorCode.UNKNOWN_SERVER_ERROR;
    const state = !isFailure(r) && r.type === 'AlterPartitionResponse' && r.state ? { ...s.p, ...r.state } : null;
    ctx.send(ctx.self, { type: 'AlterPartitionResult', proposal, errorCode, requestedIsr: sorted, state });
  });
}

/** A follower fetched from `fetchOffset`: track its progress, maybe expand the ISR. */
function onFollowerFetch(s: ReplicaState, ctx: BaseContext<ReplicaMsg>, replicaId: number, fetchOffset: number, logStartOffset: number | undefined): void {
  const now = ctx.clock.now();
  const leaderLeo = s.log.logEndOffset;
  let f = s.followers.get(replicaId);
  if (!f) {
    f = newFollower(s, now);
    s.followers.set(replicaId, f);
  }
  if (logStartOffset !== undefined && logStartOffset !== f.logStartOffset) {
    f.logStartOffset = logStartOffset;
    completeDeletes(s, ctx);
  }
  if (fetchOffset >= leaderLeo) f.lastCaughtUpTimeMs = Math.max(f.lastCaughtUpTimeMs, now);
  else if (fetchOffset >= f.lastFetchLeaderLogEndOffset) f.lastCaughtUpTimeMs = Math.max(f.lastCaughtUpTimeMs, f.lastFetchTimeMs);
  f.logEndOffset = fetchOffset;
  f.lastFetchTimeMs = now;
  f.lastFetchLeaderLogEndOffset = leaderLeo;

  const refusedUntil = s.expansionRefusedUntil.get(replicaId) ?? 0;
  if (!s.isr.includes(replicaId) && !s.pendingIsr && now >= refusedUntil && fetchOffset >= s.log.highWatermark && fetchOffset >= s.leaderEpochStartOffset) {
    maybeAlterIsr(s, ctx, [...s.isr, replicaId]);
  }
  maybeIncrementHighWatermark(s, ctx);
}

function describe(s: ReplicaState): ReplicaDescription {
  return {
    type: 'ReplicaDescription',
    topic: s.p.topic,
    partition: s.p.partition,
    role: s.role,
    leader: s.p.leader,
    leaderEpoch: s.p.leaderEpoch,
    partitionEpoch: s.p.partitionEpoch,
    isr: s.isr,
    replicas: s.p.replicas,
    highWatermark: s.log.highWatermark,
    logStartOffset: s.log.logStartOffset,
    logEndOffset: s.log.logEndOffset,
    followers: [...s.followers].map(([brokerId, f]) => ({
      brokerId,
      logEndOffset: f.logEndOffset,
      lastCaughtUpTimeMs: f.lastCaughtUpTimeMs,
      lastFetchTimeMs: f.lastFetchTimeMs,
    })),
    pendingIsr: s.pendingIsr,
    pendingIsrStatus: s.pendingIsr ? s.pendingIsrStatus : null,
    pendingProduces: s.purgatory.size,
    config: { ...s.p.config },
    logConfig: logConfigToKafka(s.log.config),
    logDir: s.args.logs.dirOf(s.p.topic, s.p.partition),
    futureLogDir: s.move?.destination ?? null,
    producerIdExpirationMs: producerIdExpirationMs(s),
  };
}

/** A follower as a leader first tracks it: nothing fetched yet, counted as caught up now. */
function newFollower(s: ReplicaState, now: number): FollowerState {
  return { logEndOffset: -1, logStartOffset: -1, lastCaughtUpTimeMs: now, lastFetchTimeMs: now, lastFetchLeaderLogEndOffset: s.log.logEndOffset };
}

/**
 * Kafka's low watermark: the lowest log start offset among this leader and the followers on live
 * brokers (a follower that has not fetched under this leadership counts as -1).
 */
function lowWatermark(s: ReplicaState): number {
  let low = s.log.logStartOffset;
  const alive = s.args.isBrokerAlive;
  for (const [id, f] of s.followers) if ((!alive || alive(id)) && f.logStartOffset < low) low = f.logStartOffset;
  return low;
}

const DELETE_RECORDS_TIMER = 'expire-delete-records';
/** DeleteRecords' wait for the followers when the request names none (Kafka's request.timeout.ms). */
const DEFAULT_DELETE_RECORDS_TIMEOUT_MS = 30_000;

/** Answers the deletions the low watermark has reached; re-arms the expiry timer for the rest. */
function completeDeletes(s: ReplicaState, ctx: BaseContext<ReplicaMsg>): void {
  if (s.deletes.size === 0) return;
  const low = lowWatermark(s);
  for (const op of s.deletes.tryComplete(low)) ctx.replyTo(op.token, { type: 'DeleteRecordsResult', errorCode: ErrorCode.NONE, lowWatermark: low } satisfies DeleteRecordsResult);
  armDeleteExpiry(s, ctx);
}

function armDeleteExpiry(s: ReplicaState, ctx: BaseContext<ReplicaMsg>): void {
  const next = s.deletes.nextDeadline();
  if (next === undefined) ctx.timers.cancel(DELETE_RECORDS_TIMER);
  else ctx.timers.startSingle(DELETE_RECORDS_TIMER, Math.max(0, next - ctx.clock.now()), { type: 'ExpireDeleteRecords' });
}

/** Leadership lost or the replica stopping: the waiting deletions are answered NOT_LEADER_OR_FOLLOWER. */
function abortDeletes(s: ReplicaState, ctx: BaseContext<ReplicaMsg>): void {
  for (const op of s.deletes.abortAll()) {
    ctx.replyTo(op.token, { type: 'DeleteRecordsResult', errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER, errorMessage: `broker ${s.args.brokerId} is no longer the leader of ${s.p.topic}-${s.p.partition}`, lowWatermark: -1 } satisfies DeleteRecordsResult);
  }
  ctx.timers.cancel(DELETE_RECORDS_TIMER);
}

/**
 * A leader whose replica set changed under the same epoch (a reassignment): followers that are
 * replicas now are tracked from their first fetch, those that are no longer are forgotten.
 */
function reconcileFollowers(s: ReplicaState, ctx: BaseContext<ReplicaMsg>, replicas: readonly number[]): void {
  const me = s.args.brokerId;
  const now = ctx.clock.now();
  for (const id of replicas) {
    if (id !== me && !s.followers.has(id)) s.followers.set(id, newFollower(s, now));
  }
  for (const id of [...s.followers.keys()]) {
    if (!replicas.includes(id)) {
      s.followers.delete(id);
      s.expansionRefusedUntil.delete(id);
    }
  }
}

/** Applies a LeaderAndIsr state: become leader or follower (same epoch: refresh ISR/config/replicas). */
function applyPartitionState(s: ReplicaState, ctx: BaseContext<ReplicaMsg>, next: LeaderAndIsrPartition): void {
  const me = s.args.brokerId;
  const newEpoch = next.leaderEpoch > s.p.leaderEpoch || s.role === 'Stopped';
  s.p = next;
  s.isr = [...next.isr];
  // the controller's state replaces whatever we proposed under the one before
  s.pendingIsr = null;
  ctx.timers.cancel(ALTER_ISR_RETRY_TIMER);
  if (next.leader === me) {
    if (s.role !== 'Leader' || newEpoch) {
      s.role = 'Leader';
      s.producers = null;
      s.followerProducers = null;
      s.verifications.clearAll();
      s.leaderEpochStartOffset = s.log.logEndOffset;
      s.log.assignEpochStartOffset(next.leaderEpoch, s.log.logEndOffset);
      const now = ctx.clock.now();
      s.followers = new Map(
        next.replicas
          .filter((id) => id !== me)
          .map((id) => [id, newFollower(s, now)]),
      );
      ctx.timers.startPeriodic(ISR_CHECK_TIMER, Math.max(10, Math.floor(s.args.replicaLagTimeMaxMs / 2)), { type: 'CheckIsr' });
      ctx.log.debug('became leader', { leaderEpoch: next.leaderEpoch, isr: next.isr, logEndOffset: s.log.logEndOffset });
    } else {
      reconcileFollowers(s, ctx, next.replicas);
    }
    maybeIncrementHighWatermark(s, ctx);
  } else {
    if (s.role === 'Leader') {
      completeProduces(s, ctx, s.purgatory.abortAll(), 'aborted');
      abortDeletes(s, ctx);
      ctx.timers.cancel(ISR_CHECK_TIMER);
      ctx.timers.cancel(EXPIRE_TIMER);
    }
    if (s.role !== 'Follower' || newEpoch) ctx.log.debug('became follower', { leader: next.leader, leaderEpoch: next.leaderEpoch });
    if (s.role !== 'Follower') s.followerProducers = null;
    s.role = 'Follower';
    s.followers = new Map();
    s.producers = null;
    s.verifications.clearAll();
  }
  notifyWatchers(s, ctx);
}

type IdempotenceCheck = { kind: 'append'; batch: ProducerBatch | null } | Exclude<SequenceCheck, { kind: 'append' }>;
const PLAIN_APPEND: IdempotenceCheck = Object.freeze({ kind: 'append', batch: null });

/** Kafka's default producer.id.expiration.ms (one day). */
const DEFAULT_PRODUCER_ID_EXPIRATION_MS = 86_400_000;
/** Idle producers are swept at most this often. */
const PRODUCER_EXPIRY_CHECK_MS = 60_000;

/**
 * For a batch from an idempotent producer (producer id >= 0): is it the next in its sequence, a
 * retry of one already written, or out of order / fenced? Plain batches are appended as they are.
 * Null when the leadership's producer state has not been read from the log yet
 * (loadProducerStateFor first).
 */
function checkIdempotenceNow(s: ReplicaState, ctx: BaseContext<ReplicaMsg>, entry: Buffer | readonly Buffer[]): IdempotenceCheck | null {
  const records = Buffer.isBuffer(entry) ? entry : entry[0]!;
  // the common case, a produce without a producer id: nothing to check and no header to parse
  if (records.length >= RECORD_BATCH_OVERHEAD && readInt64BE(records, PRODUCER_ID_OFFSET) < 0) return PLAIN_APPEND;
  let first: ProducerBatch | null = null;
  let batches = 0;
  for (const { pos } of iterateBatches(records)) {
    batches++;
    if (batches === 1 && records.length - pos >= 61) first = producerBatchAt(records, pos);
    else if (first && first.producerId >= 0) break;
  }
  // the other buffers of a list hold batches too (for an idempotent producer, one too many)
  if (!Buffer.isBuffer(entry)) batches += entry.length - 1;
  if (!first || first.producerId < 0) return { kind: 'append', batch: null };
  if (batches !== 1) return { kind: 'error', errorCode: ErrorCode.INVALID_RECORD, message: 'an idempotent produce carries exactly one record batch per partition' };
  if (!s.producers) return null;
  const now = ctx.clock.now();
  if (now - s.producersExpiredAtMs >= PRODUCER_EXPIRY_CHECK_MS) {
    s.producers.expire(now, producerIdExpirationMs(s), s.log.openTransactions());
    s.producersExpiredAtMs = now;
  }
  const r = s.producers.check(first);
  return r.kind === 'append' ? { kind: 'append', batch: first } : r;
}

function producerIdExpirationMs(s: ReplicaState): number {
  return s.brokerDefaults.producerIdExpirationMs ?? s.args.producerIdExpirationMs ?? DEFAULT_PRODUCER_ID_EXPIRATION_MS;
}

/** Reads the producer state of this leadership from the log (once, at its first idempotent batch). */
async function loadProducerStateFor(s: ReplicaState, ctx: BaseContext<ReplicaMsg>): Promise<void> {
  if (s.producers) return;
  const now = ctx.clock.now();
  s.producers = await loadProducerState(s.log, now, producerIdExpirationMs(s));
  s.producersExpiredAtMs = now;
  ctx.log.debug('producer state loaded from the log', { producers: s.producers.size });
}

function answerRead(s: ReplicaState, ctx: ActorContext<ReplicaMsg>, m: Extract<ReplicaMsg, { type: 'ReplicaRead' }>, res: ReadResult): void {
  if (res.errorCode !== ErrorCode.NONE) {
    ctx.reply(readResult(s, res.errorCode, EMPTY, 'reason' in res ? res.reason : undefined));
    return;
  }
  // the broker may still wait for more (fetch.min.bytes): tell it about the next change, unless a
  // follower's fetch is answered now for a high watermark behind ours (KIP-1166)
  if (m.watch && !(m.replicaId >= 0 && followerHighWatermarkBehind(m.replicaHighWatermark, s.log.highWatermark))) watch(s, ctx, m);
  const r = readResult(s, ErrorCode.NONE, (res as { records: Buffer }).records);
  ctx.reply(m.readCommitted && m.replicaId < 0 ? withAbortedTransactions(s, r, m.fetchOffset) : r);
}

function followerResult(s: ReplicaState, errorCode: number, errorMessage?: string): AppendAsFollowerResult {
  const r: AppendAsFollowerResult = { type: 'AppendAsFollowerResult', errorCode, logEndOffset: s.log.logEndOffset, lastFetchedEpoch: s.log.latestEpoch, logStartOffset: s.log.logStartOffset };
  if (errorMessage) r.errorMessage = errorMessage;
  return r;
}

function followerAppendFailed(s: ReplicaState, ctx: ActorContext<ReplicaMsg>, reason: string, errorCode: number): void {
  ctx.log.warn('follower append failed', { errorCode, reason });
  ctx.reply(followerResult(s, errorCode, reason));
}

/** Writes fetched batches (written at once; only a due flush.messages fsync makes the fetcher wait). */
function appendFetched(s: ReplicaState, ctx: ActorContext<ReplicaMsg>, m: Extract<ReplicaMsg, { type: 'AppendAsFollower' }>, records: Buffer): void | Promise<void> {
  const res = s.log.appendNow(records, { leaderEpoch: -1, assignOffsets: false });
  if (res.errorCode !== ErrorCode.NONE) return void followerAppendFailed(s, ctx, 'reason' in res ? res.reason : 'append failed', res.errorCode);
  if (!s.log.flushDue) return void withAppended(s, records, () => followerAppended(s, ctx, m));
  return s.log.flush().then((flushed) => {
    if (flushed.errorCode !== ErrorCode.NONE) followerAppendFailed(s, ctx, flushed.reason ?? 'flush failed', ErrorCode.KAFKA_STORAGE_ERROR);
    else followerAppended(s, ctx, m);
  });
}

/**
 * The base offset to restart an empty log at when the first fetched batch begins below its end
 * and holds it (the leader's log start inside a batch), else null.
 */
function restartOffsetForFirstBatch(s: ReplicaState, records: Buffer): number | null {
  const leo = s.log.logEndOffset;
  if (leo !== s.log.logStartOffset || records.length < RECORD_BATCH_OVERHEAD) return null;
  const base = baseOffsetOf(records, 0);
  return base < leo && lastOffsetOf(records, 0) >= leo ? base : null;
}

/** Fetched batches written: follow the leader's high watermark and log start. */
function followerAppended(s: ReplicaState, ctx: ActorContext<ReplicaMsg>, m: Extract<ReplicaMsg, { type: 'AppendAsFollower' }>): void {
  const hw = Math.min(m.leaderHighWatermark, s.log.logEndOffset);
  if (hw > s.log.highWatermark) {
    s.log.updateHighWatermark(hw);
    // consumers reading from this follower (KIP-392) wait for its high watermark
    notifyWatchers(s, ctx);
  }
  // records the leader deleted (DeleteRecords, retention) go here too
  if (m.leaderLogStartOffset > s.log.logStartOffset) s.log.maybeIncrementLogStartOffset(m.leaderLogStartOffset);
  ctx.reply(followerResult(s, ErrorCode.NONE));
}

/**
 * The produced batches in the topic's compression.type, else the broker's (as sent under
 * 'producer', the default),
 * or null after answering the produce when they cannot be rewritten (unreadable records, a codec
 * this build lacks).
 */
function inTopicCodec(s: ReplicaState, ctx: ActorContext<ReplicaMsg>, m: Extract<ReplicaMsg, { type: 'Produce' }>, records: Buffer | readonly Buffer[]): Buffer | readonly Buffer[] | null {
  const wanted = s.p.config['compression.type'] ?? s.brokerDefaults.compressionType;
  if (wanted === undefined || wanted === 'producer') return records;
  try {
    const codec = topicCodec(wanted);
    return recompressBatches(records, codec, topicCompressionLevel(s, codec));
  } catch (e) {
    rejectAppend(s, ctx, m, `compression.type ${String(wanted)}: ${(e as Error).message}`, readErrorCode(e));
    return null;
  }
}

/** The level the topic's codec compresses at: its compression.<codec>.level, else the broker's (KIP-390); none for snappy. */
function topicCompressionLevel(s: ReplicaState, codec: number): number | undefined {
  const name = compressionName(codec);
  if (!isLeveledCodec(name)) return undefined;
  const own = s.p.config[`compression.${name}.level`];
  if (own !== undefined) return Number(own);
  return s.brokerDefaults.compressionLevels?.[name];
}

/** The errorCode for a produce whose records could not be read (damage, a missing codec, a bomb). */
function readErrorCode(e: unknown): number {
  return e instanceof CorruptRecordError || e instanceof UnsupportedCompressionError || e instanceof DecompressedSizeError ? e.errorCode : ErrorCode.CORRUPT_MESSAGE;
}

/**
 * A compacted topic takes only records with a key (Kafka's INVALID_RECORD otherwise): true when
 * `records` may be written, false after answering the produce.
 */
function keyedForCompaction(s: ReplicaState, ctx: ActorContext<ReplicaMsg>, m: Extract<ReplicaMsg, { type: 'Produce' }>, records: Buffer | readonly Buffer[]): boolean {
  if (!isCompacted(s.log.config)) return true;
  let missing;
  try {
    missing = firstKeylessRecord(records);
  } catch (e) {
    rejectAppend(s, ctx, m, `records of a compacted topic cannot be read: ${(e as Error).message}`, readErrorCode(e));
    return false;
  }
  if (missing === null) return true;
  rejectAppend(
    s,
    ctx,
    m,
    `Compacted topic cannot accept message without key in topic partition ${s.p.topic}-${s.p.partition} (batch ${missing.batchIndex}, record ${missing.recordIndex})`,
    ErrorCode.INVALID_RECORD,
  );
  return false;
}

/**
 * Whether any batch of a produce entry is a control batch. Looks at headers only; a malformed
 * length stops the walk (the log's validation refuses the entry).
 */
function holdsControlBatch(records: Buffer | readonly Buffer[]): boolean {
  for (const buf of Buffer.isBuffer(records) ? [records] : records) {
    for (let pos = 0; pos + RECORD_BATCH_OVERHEAD <= buf.length; ) {
      if (isControlBatch(buf, pos)) return true;
      const size = batchSizeAt(buf, pos);
      if (size < RECORD_BATCH_OVERHEAD) break;
      pos += size;
    }
  }
  return false;
}

/**
 * Appends the marker that ends `m.producerId`'s transaction (leader only): checked against the
 * producer's epoch and the last marker's coordinator epoch, written under this leader's epoch,
 * answered once the ISR has it.
 */
async function writeTxnMarker(s: ReplicaState, ctx: ActorContext<ReplicaMsg>, m: Extract<ReplicaMsg, { type: 'WriteTxnMarker' }>): Promise<void> {
  const asProduce: Extract<ReplicaMsg, { type: 'Produce' }> = { type: 'Produce', acks: -1, timeoutMs: m.timeoutMs, records: EMPTY };
  if (s.role !== 'Leader') {
    return void replyProduce(ctx, asProduce, produceError(ErrorCode.NOT_LEADER_OR_FOLLOWER, `broker ${s.args.brokerId} is not the leader of ${s.p.topic}-${s.p.partition}`));
  }
  await loadProducerStateFor(s, ctx);
  if (s.role !== 'Leader' || !s.producers) {
    return void replyProduce(ctx, asProduce, produceError(ErrorCode.NOT_LEADER_OR_FOLLOWER, `broker ${s.args.brokerId} is no longer the leader of ${s.p.topic}-${s.p.partition}`));
  }
  const refused = s.producers.checkMarker(m.producerId, m.producerEpoch, m.coordinatorEpoch, m.transactionVersion ?? 0, s.log.openTransactions().has(m.producerId));
  if (refused === 'duplicate') {
    // the marker is in the log already: answered once everything written so far is in the ISR (it is among it)
    ctx.log.debug('transaction marker already written', { producerId: m.producerId, producerEpoch: m.producerEpoch, commit: m.commit });
    const end = s.log.logEndOffset - 1;
    return afterAppend(s, ctx, asProduce, { baseOffset: end, lastOffset: end, logAppendTime: -1, logStartOffset: s.log.logStartOffset });
  }
  if (refused) return void rejectAppend(s, ctx, asProduce, refused.message, refused.errorCode);
  const now = ctx.clock.now();
  const marker = encodeTxnMarker({ producerId: m.producerId, producerEpoch: m.producerEpoch, type: m.commit ? ControlType.COMMIT : ControlType.ABORT, coordinatorEpoch: m.coordinatorEpoch, timestamp: now });
  const before = s.log.logEndOffset;
  const written = produceChecked(s, ctx, asProduce, marker, PLAIN_APPEND);
  if (s.log.logEndOffset > before) s.producers.recordMarker(m.producerId, m.producerEpoch, m.coordinatorEpoch, now);
  // a verification taken before this marker was for the transaction it ended
  s.verifications.clear(m.producerId);
  ctx.log.debug('transaction marker written', { producerId: m.producerId, producerEpoch: m.producerEpoch, commit: m.commit, offset: before });
  await written;
}

function replyProduce(ctx: ActorContext<ReplicaMsg>, m: Extract<ReplicaMsg, { type: 'Produce' }>, r: ProduceResponse): void {
  if (m.acks !== 0) ctx.reply(r);
}

/** Appends a checked produce (or answers a duplicate) and replies or parks it; a promise only when a flush is due. */
function produceChecked(s: ReplicaState, ctx: ActorContext<ReplicaMsg>, m: Extract<ReplicaMsg, { type: 'Produce' }>, records: Buffer | readonly Buffer[], idempotent: IdempotenceCheck): Promise<void> | undefined {
  if (idempotent.kind === 'error') {
    ctx.log.warn('produce rejected', { errorCode: idempotent.errorCode, reason: idempotent.message });
    replyProduce(ctx, m, produceError(idempotent.errorCode, idempotent.message, s.log.logStartOffset));
    return undefined;
  }
  if (idempotent.kind === 'duplicate') {
    // a retry of a batch already written: answer with its offsets, write nothing
    afterAppend(s, ctx, m, { baseOffset: idempotent.firstOffset, lastOffset: idempotent.lastOffset, logAppendTime: -1, logStartOffset: s.log.logStartOffset });
    return undefined;
  }
  const res = s.log.appendNow(records, { leaderEpoch: s.p.leaderEpoch });
  if (res.errorCode !== ErrorCode.NONE) {
    rejectAppend(s, ctx, m, 'reason' in res ? res.reason : 'append failed', res.errorCode);
    return undefined;
  }
  const ok = res as { baseOffset: number; lastOffset: number; logAppendTime: number; logStartOffset: number };
  if (idempotent.batch) s.producers?.record(appendedBatch(idempotent.batch, ok.baseOffset, ok.lastOffset));
  if (!s.log.flushDue) {
    withAppended(s, records, () => afterAppend(s, ctx, m, ok));
    return undefined;
  }
  // flush.messages reached: acknowledged only once on disk (the mailbox waits meanwhile)
  return s.log.flush().then((flushed) => {
    if (flushed.errorCode !== ErrorCode.NONE) rejectAppend(s, ctx, m, flushed.reason ?? 'flush failed', ErrorCode.KAFKA_STORAGE_ERROR);
    else afterAppend(s, ctx, m, ok);
  });
}

/**
 * Why a verified produce may not be appended (null: it may): its transactional batch would open
 * its producer's transaction here without the guard its verification took, or after a marker
 * dropped it (Kafka's "Record was not part of an ongoing transaction"). The guard is spent once
 * it lets a batch open the transaction.
 */
function unverifiedTransaction(s: ReplicaState, sent: Buffer | readonly Buffer[], guard: number): string | null {
  const first = Buffer.isBuffer(sent) ? sent : sent[0];
  const txn = first ? transactionalProducerOf(first) : null;
  if (!txn || s.log.openTransactions().has(txn.producerId)) return null;
  if (!s.verifications.holds(txn.producerId, txn.producerEpoch, guard)) {
    return `producer ${txn.producerId} (epoch ${txn.producerEpoch}) has no ongoing transaction with ${s.p.topic}-${s.p.partition} in it: the partition was not added to the transaction, or the transaction ended`;
  }
  s.verifications.clear(txn.producerId);
  return null;
}

function rejectAppend(s: ReplicaState, ctx: ActorContext<ReplicaMsg>, m: Extract<ReplicaMsg, { type: 'Produce' }>, reason: string, errorCode: number): void {
  ctx.log.warn('produce rejected', { errorCode, reason });
  replyProduce(ctx, m, produceError(errorCode, reason, s.log.logStartOffset));
}

/** Written: wakes fetches, moves the high watermark, and answers now (acks 0/1, or all in sync) or parks the produce. */
function afterAppend(s: ReplicaState, ctx: ActorContext<ReplicaMsg>, m: Extract<ReplicaMsg, { type: 'Produce' }>, ok: { baseOffset: number; lastOffset: number; logAppendTime: number; logStartOffset: number }): void {
  // the high watermark first, so that reads done again for the watchers see what it lets out
  maybeIncrementHighWatermark(s, ctx);
  notifyWatchers(s, ctx);
  if (m.acks !== -1 || s.log.highWatermark > ok.lastOffset) {
    if (m.acks === -1 && s.isr.length < minInsync(s)) {
      replyProduce(ctx, m, produceError(ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND, 'appended, but the ISR is below min.insync.replicas'));
      return;
    }
    replyProduce(ctx, m, { type: 'ProduceResponse', errorCode: ErrorCode.NONE, errorMessage: null, baseOffset: ok.baseOffset, logAppendTime: ok.logAppendTime, logStartOffset: ok.logStartOffset });
    return;
  }
  const token = ctx.deferReply();
  if (!token) return;
  const deadline = ctx.clock.now() + Math.max(0, m.timeoutMs);
  s.purgatory.add({ requiredOffset: ok.lastOffset, deadline, token, baseOffset: ok.baseOffset, logAppendTime: ok.logAppendTime });
  // an armed expiry timer due no later than this deadline serves it too (when it fires it
  // expires what is due and re-arms for the rest): no timer churn per parked produce
  if (!ctx.timers.isActive(EXPIRE_TIMER) || deadline < s.expiryDue) scheduleExpiry(s, ctx);
}

export const partitionReplica = defineActor<ReplicaState, ReplicaMsg, ReplicaArgs>({
  kind: 'partition-replica',
  // what samsa's admin asks a replica itself; produce and fetch go through the broker, and
  // replication (BecomeLeaderOrFollower, AppendAsFollower, ...) is the cluster's
  clientMessages: { ListOffsets: true, DeleteRecords: true, DescribeProducers: true, DescribeReplica: true },
  // its broker's (its parent: leadership, configs, markers, log dirs), its fetcher's (the same
  // node's) and its own timers': never another node's; reads, produces and lookups come from anywhere
  localMessages: [
    'BecomeLeaderOrFollower',
    'StopReplica',
    'TopicConfigChanged',
    'BrokerDefaultsChanged',
    'WriteTxnMarker',
    'StartTxnVerification',
    'AlterLogDir',
    'CopyToFutureLog',
    'AppendAsFollower',
    'TruncateForDivergence',
    'ResetFetchPosition',
    'AlterPartitionResult',
    'RetryAlterPartition',
    'CheckIsr',
    'ExpireProduces',
    'ExpireDeleteRecords',
  ],
  supervision: { maxRestarts: 5, withinMs: 60_000 },
  mailboxLimit: 100_000,

  async init(ctx, args) {
    // topic overrides that are log settings go to the log; the rest (min.insync.replicas...) stay here
    const overrides: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(args.initial.config)) if (LOG_CONFIG_KEYS.includes(k)) overrides[k] = v;
    const log = await args.logs.getOrCreateLog(args.topic, args.partition, overrides);
    const s: ReplicaState = {
      role: 'Stopped',
      log,
      p: { ...args.initial, leaderEpoch: -1 },
      isr: [],
      pendingIsr: null,
      isrProposal: 0,
      pendingIsrStatus: null,
      followers: new Map(),
      leaderEpochStartOffset: 0,
      expansionRefusedUntil: new Map(),
      purgatory: new ProducePurgatory(),
      deletes: new DeleteRecordsPurgatory(),
      expiryDue: Infinity,
      watchers: [],
      appended: null,
      producers: null,
      followerProducers: null,
      verifications: new TxnVerifications(),
      producersExpiredAtMs: 0,
      move: null,
      brokerDefaults: { minInsyncReplicas: args.defaultMinInsyncReplicas, compressionType: args.defaultCompressionType, ...(args.defaultCompressionLevels ? { compressionLevels: args.defaultCompressionLevels } : {}) },
      args,
    };
    applyPartitionState(s, ctx, args.initial);
    return s;
  },

  schema: {
    Produce: { acks: 'integer', timeoutMs: 'number', records: 'batches' },
    StartTxnVerification: { producerId: 'integer', producerEpoch: 'integer' },
    ReplicaRead: {
      replicaId: 'integer',
      fetchOffset: 'integer',
      maxBytes: 'integer',
      currentLeaderEpoch: 'integer',
      lastFetchedEpoch: 'integer',
      watch: 'boolean',
      fetchId: 'integer?',
      watchUntil: 'number?',
      replicaHighWatermark: 'integer?',
    },
    ListOffsets: { timestamp: 'integer', currentLeaderEpoch: 'integer' },
    OffsetsForLeaderEpoch: { leaderEpoch: 'integer', currentLeaderEpoch: 'integer' },
    DeleteRecords: { offset: 'integer', timeoutMs: 'integer?' },
    BecomeLeaderOrFollower: { controllerEpoch: 'integer', state: LEADER_AND_ISR_PARTITION },
    AppendAsFollower: { leaderEpoch: 'integer', records: 'bytes', leaderHighWatermark: 'integer', leaderLogStartOffset: 'integer' },
    TruncateForDivergence: { leaderEpoch: 'integer', divergingEpoch: 'integer', divergingEndOffset: 'integer' },
    ResetFetchPosition: { leaderEpoch: 'integer', leaderLogStartOffset: 'integer', leaderLogEndOffset: 'integer' },
    StopReplica: { deletePartition: 'boolean' },
    AlterLogDir: { logDir: 'string' },
    WriteTxnMarker: { producerId: 'integer', producerEpoch: 'safeInteger', coordinatorEpoch: 'safeInteger', commit: 'boolean', timeoutMs: 'number', transactionVersion: 'safeInteger?' },
  },

  handlers: {
    Produce(s, m, ctx) {
      if (m.acks !== 0 && m.acks !== 1 && m.acks !== -1) {
        ctx.reply(produceError(ErrorCode.INVALID_REQUIRED_ACKS, `acks must be 0, 1 or -1 (all), got ${String(m.acks)}`));
        return;
      }
      if (s.role !== 'Leader') {
        replyProduce(ctx, m, produceError(ErrorCode.NOT_LEADER_OR_FOLLOWER, `broker ${s.args.brokerId} is not the leader of ${s.p.topic}-${s.p.partition} (leader ${s.p.leader})`));
        return;
      }
      if (m.acks === -1 && s.isr.length < minInsync(s)) {
        replyProduce(
          ctx,
          m,
          produceError(ErrorCode.NOT_ENOUGH_REPLICAS, `ISR ${JSON.stringify(s.isr)} has ${s.isr.length} replicas, below min.insync.replicas ${minInsync(s)}`, s.log.logStartOffset),
        );
        return;
      }
      const sent = m.records instanceof Uint8Array ? asBuffer(m.records) : m.records.map(asBuffer);
      // transaction markers are the coordinator's to write (WriteTxnMarker), never a client's
      if (holdsControlBatch(sent)) return void rejectAppend(s, ctx, m, 'control batches (transaction markers) cannot be produced by a client', ErrorCode.INVALID_RECORD);
      if (m.verify === true) {
        const refused = unverifiedTransaction(s, sent, m.verificationGuard ?? NO_GUARD);
        if (refused) return void rejectAppend(s, ctx, m, refused, ErrorCode.INVALID_TXN_STATE);
      }
      const records = inTopicCodec(s, ctx, m, sent);
      if (records === null || !keyedForCompaction(s, ctx, m, records)) return;
      // the common case runs without an await (an async handler costs the mailbox a turn per
      // batch): only a first idempotent batch (producer state read from the log) or a due
      // flush.messages fsync waits
      const idempotent = m.fromCoordinator === true ? PLAIN_APPEND : checkIdempotenceNow(s, ctx, records);
      if (idempotent === null) {
        return loadProducerStateFor(s, ctx).then(() => produceChecked(s, ctx, m, records, checkIdempotenceNow(s, ctx, records)!));
      }
      return produceChecked(s, ctx, m, records, idempotent);
    },

    WriteTxnMarker(s, m, ctx) {
      return writeTxnMarker(s, ctx, m);
    },

    StartTxnVerification(s, m, ctx) {
      if (s.role !== 'Leader') {
        return ctx.reply({ type: 'TxnVerificationStarted', errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER, errorMessage: `broker ${s.args.brokerId} is not the leader of ${s.p.topic}-${s.p.partition}`, guard: NO_GUARD } satisfies TxnVerificationStarted);
      }
      // open at this epoch: a TV_2 producer's next transaction (a bumped epoch) may come before
      // the marker ending its last one here, and must not join it (Kafka's hasOngoingTransaction)
      const open = s.log.openTransactions().has(m.producerId) && s.producers?.describe(m.producerId)?.epoch === m.producerEpoch;
      const guard = s.verifications.start(m.producerId, m.producerEpoch, open, ctx.clock.now(), producerIdExpirationMs(s));
      ctx.reply({ type: 'TxnVerificationStarted', errorCode: ErrorCode.NONE, guard } satisfies TxnVerificationStarted);
    },

    ReplicaRead(s, m, ctx) {
      // a consumer that gave its client metadata (Kafka's Fetch v11+) may read from a follower
      const followerRead = s.role === 'Follower' && m.replicaId < 0 && m.clientRack !== undefined;
      if (s.role !== 'Leader' && !followerRead) {
        ctx.reply(readResult(s, ErrorCode.NOT_LEADER_OR_FOLLOWER, EMPTY, `broker ${s.args.brokerId} is not the leader`));
        return;
      }
      const epochError = validateLeaderEpoch(s, m.currentLeaderEpoch);
      if (epochError !== null) {
        ctx.reply(readResult(s, epochError, EMPTY, `leader epoch ${m.currentLeaderEpoch} vs ${s.p.leaderEpoch}`));
        return;
      }
      if (followerRead && (m.fetchOffset > s.log.logEndOffset || m.fetchOffset < s.log.logStartOffset)) {
        // out of this follower's range: the leader knows whether it is out of range at all (a
        // client told OFFSET_OUT_OF_RANGE here may reset its position for nothing)
        ctx.reply(readResult(s, ErrorCode.NOT_LEADER_OR_FOLLOWER, EMPTY, `offset ${m.fetchOffset} is outside this follower's log [${s.log.logStartOffset}, ${s.log.logEndOffset}]: fetch it from the leader`));
        return;
      }
      if (m.replicaId < 0 && m.clientRack && s.role === 'Leader' && s.args.readReplicaSelection) {
        const preferred = preferredReadReplica(s, ctx, m.fetchOffset, m.clientRack, s.args.readReplicaSelection.rackOf);
        if (preferred !== s.args.brokerId) {
          // the consumer fetches from that replica from now on: no records from here
          const r = readResult(s, ErrorCode.NONE);
          r.preferredReadReplica = preferred;
          ctx.reply(r);
          return;
        }
      }
      if (m.replicaId >= 0) {
        if (!s.p.replicas.includes(m.replicaId)) {
          ctx.reply(readResult(s, ErrorCode.NOT_LEADER_OR_FOLLOWER, EMPTY, `broker ${m.replicaId} is not a replica of this partition`));
          return;
        }
        if (m.lastFetchedEpoch >= 0) {
          const end = s.log.endOffsetForEpoch(m.lastFetchedEpoch);
          if (end.leaderEpoch !== m.lastFetchedEpoch || end.endOffset < m.fetchOffset) {
            const r = readResult(s, ErrorCode.NONE);
            r.divergingEpoch = { epoch: end.leaderEpoch, endOffset: end.endOffset };
            ctx.reply(r);
            return;
          }
        }
        if (m.fetchOffset <= s.log.logEndOffset && m.fetchOffset >= s.log.logStartOffset) onFollowerFetch(s, ctx, m.replicaId, m.fetchOffset, m.replicaLogStartOffset);
      }
      const options = readLimit(s, m.replicaId, m.readCommitted === true);
      // the tail is read at once; older segments (a reader catching up) without blocking the mailbox's thread
      const now = s.log.readNow(m.fetchOffset, m.maxBytes, options);
      if (now) return answerRead(s, ctx, m, now);
      return s.log.read(m.fetchOffset, m.maxBytes, options).then((res) => answerRead(s, ctx, m, res));
    },

    async ListOffsets(s, m, ctx) {
      const fail = (errorCode: number): ListOffsetsResult => ({ type: 'ListOffsetsResult', errorCode, offset: -1, timestamp: -1, leaderEpoch: -1 });
      if (s.role !== 'Leader') return void ctx.reply(fail(ErrorCode.NOT_LEADER_OR_FOLLOWER));
      const epochError = validateLeaderEpoch(s, m.currentLeaderEpoch);
      if (epochError !== null) return void ctx.reply(fail(epochError));
      const hw = s.log.highWatermark;
      // without tiered storage the local log starts where the log does, as Kafka answers then; the
      // epoch is the one in force at the log start (the log's epoch cache), as Kafka's
      if (m.timestamp === EARLIEST_TIMESTAMP || m.timestamp === EARLIEST_LOCAL_TIMESTAMP) {
        const start = await s.log.offsetForTimestamp(EARLIEST_TIMESTAMP);
        if (start.errorCode !== ErrorCode.NONE) return void ctx.reply(fail(start.errorCode));
        const at = start as { offset: number; leaderEpoch: number };
        ctx.reply({ type: 'ListOffsetsResult', errorCode: ErrorCode.NONE, offset: at.offset, timestamp: -1, leaderEpoch: at.leaderEpoch } satisfies ListOffsetsResult);
        return;
      }
      // as Kafka: a client asking (isolation level given) of a new leader whose high watermark has
      // not reached its epoch's start yet could be told an offset below one told before; it is
      // told to retry (OFFSET_NOT_AVAILABLE) where the answer would depend on that
      const lagging = m.isolationLevel !== undefined && s.leaderEpochStartOffset > hw;
      if (m.timestamp === LATEST_TIMESTAMP) {
        if (lagging) return void ctx.reply(fail(ErrorCode.OFFSET_NOT_AVAILABLE));
        // read_committed consumers start at the last stable offset
        const offset = m.isolationLevel === 'read_committed' ? s.log.lastStableOffset : hw;
        ctx.reply({ type: 'ListOffsetsResult', errorCode: ErrorCode.NONE, offset, timestamp: -1, leaderEpoch: s.p.leaderEpoch } satisfies ListOffsetsResult);
        return;
      }
      // nothing is tiered or waits to be: no offset, as Kafka answers for a log without remote storage
      if (m.timestamp === LATEST_TIERED_TIMESTAMP || m.timestamp === EARLIEST_PENDING_UPLOAD_TIMESTAMP) return void ctx.reply(fail(ErrorCode.NONE));
      if (m.timestamp < 0 && m.timestamp !== MAX_TIMESTAMP) return void ctx.reply(fail(ErrorCode.INVALID_REQUEST));
      const r = m.timestamp === MAX_TIMESTAMP ? await s.log.offsetOfMaxTimestamp() : await s.log.offsetForTimestamp(m.timestamp);
      if (r.errorCode !== ErrorCode.NONE) return void ctx.reply(fail(r.errorCode));
      const found = r as { offset: number; timestamp: number; leaderEpoch: number };
      // as Kafka: a record the client could not fetch yet is no answer (-1)
      const fetchable = m.isolationLevel === 'read_committed' ? s.log.lastStableOffset : hw;
      const visible = found.offset >= 0 && found.offset < fetchable;
      if (!visible && lagging) return void ctx.reply(fail(ErrorCode.OFFSET_NOT_AVAILABLE));
      ctx.reply({
        type: 'ListOffsetsResult',
        errorCode: ErrorCode.NONE,
        offset: visible ? found.offset : -1,
        timestamp: visible ? found.timestamp : -1,
        leaderEpoch: visible ? found.leaderEpoch : -1,
      } satisfies ListOffsetsResult);
    },

    OffsetsForLeaderEpoch(s, m, ctx) {
      const fail = (errorCode: number): EpochEndOffsetResult => ({ type: 'EpochEndOffset', errorCode, leaderEpoch: -1, endOffset: -1 });
      if (s.role !== 'Leader') return void ctx.reply(fail(ErrorCode.NOT_LEADER_OR_FOLLOWER));
      const epochError = validateLeaderEpoch(s, m.currentLeaderEpoch);
      if (epochError !== null) return void ctx.reply(fail(epochError));
      const end = s.log.endOffsetForEpoch(m.leaderEpoch);
      ctx.reply({ type: 'EpochEndOffset', errorCode: ErrorCode.NONE, leaderEpoch: end.leaderEpoch, endOffset: end.endOffset } satisfies EpochEndOffsetResult);
    },

    BecomeLeaderOrFollower(s, m, ctx) {
      const next = m.state;
      const stale = next.leaderEpoch < s.p.leaderEpoch || (next.leaderEpoch === s.p.leaderEpoch && next.partitionEpoch < s.p.partitionEpoch);
      if (stale) {
        ctx.log.warn('ignoring a stale partition state', { leaderEpoch: next.leaderEpoch, current: s.p.leaderEpoch });
        ctx.reply({ type: 'BecameLeaderOrFollower', errorCode: ErrorCode.FENCED_LEADER_EPOCH, logEndOffset: s.log.logEndOffset, lastFetchedEpoch: s.log.latestEpoch, logStartOffset: s.log.logStartOffset });
        return;
      }
      applyPartitionState(s, ctx, next);
      ctx.reply({ type: 'BecameLeaderOrFollower', errorCode: ErrorCode.NONE, logEndOffset: s.log.logEndOffset, lastFetchedEpoch: s.log.latestEpoch, logStartOffset: s.log.logStartOffset });
    },

    TopicConfigChanged(s, m, ctx) {
      s.p = { ...s.p, config: { ...m.config } };
      applyLogConfig(s, ctx);
      ctx.log.info('topic config changed', { config: m.config });
    },

    BrokerDefaultsChanged(s, m, ctx) {
      s.brokerDefaults = { minInsyncReplicas: m.minInsyncReplicas, compressionType: m.compressionType, ...(m.compressionLevels ? { compressionLevels: m.compressionLevels } : {}) };
      // producer.id.expiration.ms is dynamic too (KIP-854): the next sweep uses it
      if (m.producerIdExpirationMs !== undefined) s.brokerDefaults.producerIdExpirationMs = m.producerIdExpirationMs;
      // the log's settings the topic does not set itself follow the broker's new defaults
      applyLogConfig(s, ctx);
      // a move waiting out the log dir move throttle looks at it again: its limit may have changed
      if (s.move && ctx.timers.isActive(COPY_TIMER)) ctx.timers.startSingle(COPY_TIMER, 0, { type: 'CopyToFutureLog' });
    },

    async DeleteRecords(s, m, ctx) {
      const token = ctx.deferReply();
      if (!token) return;
      const fail = (errorCode: number, errorMessage: string) => ctx.replyTo(token, { type: 'DeleteRecordsResult', errorCode, errorMessage, lowWatermark: -1 } satisfies DeleteRecordsResult);
      if (s.role !== 'Leader') return fail(ErrorCode.NOT_LEADER_OR_FOLLOWER, `broker ${s.args.brokerId} is not the leader of ${s.p.topic}-${s.p.partition}`);
      if (!deletesByRetention(s.log.config)) {
        return fail(ErrorCode.POLICY_VIOLATION, `Records of partition ${s.p.topic}-${s.p.partition} can not be deleted due to the configured policy (cleanup.policy=${s.log.config.cleanupPolicy})`);
      }
      const hw = s.log.highWatermark;
      const offset = m.offset === -1 ? hw : m.offset;
      if (!Number.isSafeInteger(offset) || offset < 0 || offset > hw) {
        return fail(ErrorCode.OFFSET_OUT_OF_RANGE, `cannot delete records before ${m.offset}: the high watermark is ${hw}`);
      }
      s.log.deleteRecordsBefore(offset);
      // durable before the answer: a restart must not bring the records back
      await s.args.logs.checkpointLogStartOffsets();
      if (s.role !== 'Leader') return fail(ErrorCode.NOT_LEADER_OR_FOLLOWER, `broker ${s.args.brokerId} is no longer the leader of ${s.p.topic}-${s.p.partition}`);
      // as Kafka's DelayedDeleteRecords: answered once every live replica has deleted them too
      s.deletes.add({ offset, token, deadline: ctx.clock.now() + Math.max(0, m.timeoutMs ?? DEFAULT_DELETE_RECORDS_TIMEOUT_MS) });
      // followers parked on a fetch learn of the new log start now
      notifyWatchers(s, ctx);
      completeDeletes(s, ctx);
    },

    ExpireDeleteRecords(s, _m, ctx) {
      for (const op of s.deletes.expire(ctx.clock.now())) {
        ctx.replyTo(op.token, { type: 'DeleteRecordsResult', errorCode: ErrorCode.REQUEST_TIMED_OUT, errorMessage: `not every replica of ${s.p.topic}-${s.p.partition} deleted the records before ${op.offset} in time (low watermark ${lowWatermark(s)})`, lowWatermark: -1 } satisfies DeleteRecordsResult);
      }
      armDeleteExpiry(s, ctx);
    },

    AppendAsFollower(s, m, ctx) {
      if (s.role !== 'Follower') return void ctx.reply(followerResult(s, ErrorCode.NOT_LEADER_OR_FOLLOWER, 'not a follower'));
      if (m.leaderEpoch < s.p.leaderEpoch) return void ctx.reply(followerResult(s, ErrorCode.FENCED_LEADER_EPOCH, 'fetched under an older leader epoch'));
      if (m.records.length === 0) return void followerAppended(s, ctx, m);
      const records = asBuffer(m.records);
      const restart = restartOffsetForFirstBatch(s, records);
      if (restart !== null) {
        // an empty log restarted at the leader's log start, which falls inside a batch (records
        // deleted up to the middle of it): the log starts at that batch instead, as in Kafka; the
        // log start moves back up to the leader's once the batch is written
        ctx.log.info('the leader log start falls inside the first fetched batch: starting the log at the batch', { from: s.log.logEndOffset, to: restart });
        s.followerProducers = null;
        return s.log.truncateFullyAndStartAt(restart).then(() => appendFetched(s, ctx, m, records));
      }
      return appendFetched(s, ctx, m, records);
    },

    async TruncateForDivergence(s, m, ctx) {
      if (s.role !== 'Follower' || m.leaderEpoch < s.p.leaderEpoch) {
        ctx.reply({ type: 'AppendAsFollowerResult', errorCode: ErrorCode.FENCED_LEADER_EPOCH, logEndOffset: s.log.logEndOffset, lastFetchedEpoch: s.log.latestEpoch, logStartOffset: s.log.logStartOffset } satisfies AppendAsFollowerResult);
        return;
      }
      // whatever is truncated, the producers read from the log so far are read again
      s.followerProducers = null;
      const local = s.log.endOffsetForEpoch(m.divergingEpoch);
      let target = m.divergingEndOffset;
      if (local.endOffset >= 0) target = Math.min(target, local.endOffset);
      if (target < 0) target = 0;
      if (target < s.log.logEndOffset) {
        ctx.log.warn('truncating diverged records', { from: s.log.logEndOffset, to: target, divergingEpoch: m.divergingEpoch });
        s.producers = null;
        if (target < s.log.logStartOffset) await s.log.truncateFullyAndStartAt(target);
        else await s.log.truncateTo(target);
      } else {
        // no record to drop, but an epoch this replica began as leader at its log end and never
        // wrote under goes: left as its latest, the next fetch would diverge again, and again
        await s.log.truncateTo(target);
      }
      ctx.reply({ type: 'AppendAsFollowerResult', errorCode: ErrorCode.NONE, logEndOffset: s.log.logEndOffset, lastFetchedEpoch: s.log.latestEpoch, logStartOffset: s.log.logStartOffset } satisfies AppendAsFollowerResult);
    },

    async ResetFetchPosition(s, m, ctx) {
      if (s.role !== 'Follower' || m.leaderEpoch < s.p.leaderEpoch) {
        ctx.reply({ type: 'AppendAsFollowerResult', errorCode: ErrorCode.FENCED_LEADER_EPOCH, logEndOffset: s.log.logEndOffset, lastFetchedEpoch: s.log.latestEpoch, logStartOffset: s.log.logStartOffset } satisfies AppendAsFollowerResult);
        return;
      }
      s.followerProducers = null;
      if (s.log.logEndOffset > m.leaderLogEndOffset) {
        ctx.log.warn('truncating to the leader log end offset', { from: s.log.logEndOffset, to: m.leaderLogEndOffset });
        await s.log.truncateTo(m.leaderLogEndOffset);
      } else if (s.log.logEndOffset < m.leaderLogStartOffset) {
        ctx.log.warn('behind the leader log start offset: restarting the log there', { from: s.log.logEndOffset, to: m.leaderLogStartOffset });
        await s.log.truncateFullyAndStartAt(m.leaderLogStartOffset);
      }
      ctx.reply({ type: 'AppendAsFollowerResult', errorCode: ErrorCode.NONE, logEndOffset: s.log.logEndOffset, lastFetchedEpoch: s.log.latestEpoch, logStartOffset: s.log.logStartOffset } satisfies AppendAsFollowerResult);
    },

    async StopReplica(s, m, ctx) {
      completeProduces(s, ctx, s.purgatory.abortAll(), 'aborted');
      abortDeletes(s, ctx);
      ctx.timers.cancel(ISR_CHECK_TIMER);
      ctx.timers.cancel(EXPIRE_TIMER);
      s.role = 'Stopped';
      ctx.timers.cancel(COPY_TIMER);
      if (s.move) await s.args.logs.abortMove(s.move);
      s.move = null;
      if (m.deletePartition) await s.args.logs.deleteLog(s.p.topic, s.p.partition);
      ctx.reply({ type: 'ReplicaStopped', errorCode: ErrorCode.NONE, topic: s.p.topic, partition: s.p.partition });
      ctx.stop();
    },

    AlterPartitionResult(s, m, ctx) {
      if (!s.pendingIsr || m.proposal !== s.isrProposal || s.role !== 'Leader') return;
      const outcome = isrChangeOutcome(m.errorCode, m.state, s.args.brokerId, s.p.leaderEpoch);
      switch (outcome.kind) {
        case 'committed': {
          s.pendingIsr = null;
          const next = outcome.state;
          // the change may have completed a reassignment: the replica set comes with it
          s.p = { ...s.p, replicas: next.replicas, isr: next.isr, partitionEpoch: next.partitionEpoch };
          s.isr = [...next.isr];
          reconcileFollowers(s, ctx, s.p.replicas);
          if (m.errorCode === ErrorCode.NONE) ctx.log.info('ISR changed', { isr: s.isr, partitionEpoch: s.p.partitionEpoch });
          else ctx.log.info('ISR change answered with a newer committed state', { errorCode: m.errorCode, isr: s.isr, partitionEpoch: s.p.partitionEpoch });
          maybeIncrementHighWatermark(s, ctx);
          return;
        }
        case 'rejected': {
          // e.g. the follower's broker is shutting down or fenced: do not ask again on its every fetch
          s.pendingIsr = null;
          const until = ctx.clock.now() + EXPANSION_RETRY_MS;
          for (const id of m.requestedIsr) if (!s.isr.includes(id)) s.expansionRefusedUntil.set(id, until);
          ctx.log.warn('ISR change refused', { errorCode: m.errorCode, requested: m.requestedIsr, retryInMs: EXPANSION_RETRY_MS });
          return;
        }
        case 'awaitState':
          // applied under a leadership we no longer hold, or our state is behind: the controller's
          // LeaderAndIsr (or StopReplica) is on its way; until then the maximal ISR holds
          s.pendingIsrStatus = 'awaitingState';
          ctx.log.info('ISR change pending until the controller sends the new state', { errorCode: m.errorCode, requested: m.requestedIsr });
          return;
        case 'retry':
          s.pendingIsrStatus = 'retrying';
          ctx.log.warn('ISR change not confirmed: asking again', { errorCode: m.errorCode, requested: m.requestedIsr, retryInMs: ALTER_ISR_RETRY_MS });
          ctx.timers.startSingle(ALTER_ISR_RETRY_TIMER, ALTER_ISR_RETRY_MS, { type: 'RetryAlterPartition', proposal: s.isrProposal });
          return;
        default:
          assertNever(outcome, 'ISR change outcome');
      }
    },

    RetryAlterPartition(s, m, ctx) {
      if (m.proposal === s.isrProposal) sendAlterPartition(s, ctx);
    },

    CheckIsr(s, _m, ctx) {
      if (s.role !== 'Leader' || s.pendingIsr) return;
      const now = ctx.clock.now();
      const lagging = s.isr.filter((id) => {
        if (id === s.args.brokerId) return false;
        const f = s.followers.get(id);
        return !f || now - f.lastCaughtUpTimeMs > s.args.replicaLagTimeMaxMs;
      });
      if (lagging.length === 0) return;
      ctx.log.warn('shrinking ISR: followers out of sync', { lagging, replicaLagTimeMaxMs: s.args.replicaLagTimeMaxMs });
      maybeAlterIsr(
        s,
        ctx,
        s.isr.filter((id) => !lagging.includes(id)),
      );
    },

    ExpireProduces(s, _m, ctx) {
      completeProduces(s, ctx, s.purgatory.expire(ctx.clock.now()), 'expired');
      scheduleExpiry(s, ctx);
    },

    DescribeReplica(s, _m, ctx) {
      ctx.reply(describe(s));
    },

    async AlterLogDir(s, m, ctx) {
      const answer = (errorCode: number, errorMessage: string | null) => ctx.reply({ type: 'LogDirAltered', errorCode, errorMessage } satisfies LogDirAltered);
      const dest = s.args.logs.managerFor(m.logDir);
      if (!dest) return answer(ErrorCode.LOG_DIR_NOT_FOUND, `${m.logDir} is not a log dir of broker ${s.args.brokerId}`);
      if (s.role === 'Stopped') return answer(ErrorCode.REPLICA_NOT_AVAILABLE, `${s.p.topic}-${s.p.partition} is stopped on broker ${s.args.brokerId}`);
      const r = await s.args.logs.startMove(s.log, dest.logDir);
      // a move elsewhere was stopped by this one, or the log is in that dir already
      s.move = r.move;
      answer(r.errorCode, r.errorMessage);
      if (s.move) {
        ctx.log.info('moving the log to another log dir', { to: dest.logDir });
        if (!ctx.timers.isActive(COPY_TIMER)) ctx.timers.startSingle(COPY_TIMER, 0, { type: 'CopyToFutureLog' });
      }
    },

    async CopyToFutureLog(s, _m, ctx) {
      const move = s.move;
      if (!move || move.current !== s.log) return;
      // the broker's moves together copy no faster than replica.alter.log.dirs.io.max.bytes.per.second
      const wait = move.throttleDelayMs();
      if (wait > 0) {
        ctx.timers.startSingle(COPY_TIMER, wait, { type: 'CopyToFutureLog' });
        return;
      }
      const step = await move.copyStep();
      if (step.errorCode !== ErrorCode.NONE) {
        ctx.log.error('moving the log to another log dir failed: it stays where it is', { to: move.destination, reason: step.errorMessage });
        s.move = null;
        await s.args.logs.abortMove(move);
        return;
      }
      if (!step.caughtUp) {
        ctx.timers.startSingle(COPY_TIMER, 0, { type: 'CopyToFutureLog' });
        return;
      }
      // caught up, and nothing can be appended until this handler ends: swap them
      s.move = null;
      const done = await s.args.logs.completeMove(move);
      s.log = done.log;
      if (done.errorCode !== ErrorCode.NONE) ctx.log.error('the log could not take its new log dir: it stays where it is', { to: move.destination, errorCode: done.errorCode, reason: done.errorMessage });
      else ctx.log.info('log moved to another log dir', { to: move.destination });
    },

    async DescribeProducers(s, _m, ctx) {
      if (s.role === 'Stopped') {
        return ctx.reply({ type: 'ProducersDescription', errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER, errorMessage: `${s.args.topic}-${s.args.partition} is stopped on broker ${s.args.brokerId}`, producers: [] } satisfies ProducersDescription);
      }
      // a leader keeps its table; a follower, whose appends keep none, reads one from its log and
      // then reads on from there at each answer (Kafka's followers answer from their producer state too)
      let table: ProducerStateTable;
      if (s.role === 'Leader') {
        await loadProducerStateFor(s, ctx);
        table = s.producers!;
      } else {
        const now = ctx.clock.now();
        const cached = s.followerProducers;
        if (cached && cached.readTo <= s.log.logEndOffset) {
          cached.readTo = await readProducerBatches(cached.table, s.log, cached.readTo);
          cached.table.expire(now, producerIdExpirationMs(s), s.log.openTransactions());
          table = cached.table;
        } else {
          table = await loadProducerState(s.log, now, producerIdExpirationMs(s));
          s.followerProducers = { table, readTo: s.log.logEndOffset };
        }
      }
      const open = s.log.openTransactions();
      const producers = table.activeProducers().map((p) => ({ ...p, currentTxnStartOffset: open.get(p.producerId) ?? -1 }));
      ctx.reply({ type: 'ProducersDescription', errorCode: ErrorCode.NONE, producers } satisfies ProducersDescription);
    },
  },

  onStop(s, ctx) {
    completeProduces(s, ctx, s.purgatory.abortAll(), 'aborted');
    // a move in progress ends with the replica (the future log is dropped)
    if (s.move) void s.args.logs.abortMove(s.move);
  },
});

