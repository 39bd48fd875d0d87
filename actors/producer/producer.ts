/**
 * The producer: partitions records, accumulates them per partition into RecordBatch v2 bytes
 * (built once, here), sends batches to partition leaders, retries what can be retried, and
 * answers each Send once all of its records are acknowledged.
 *
 * Owned state: the metadata cache; per partition an open batch and ready batches; free batch
 * buffers (BatchBufferPool) for the next batches; the requests in
 * flight per broker (at most max.in.flight.requests.per.connection); the bytes held against buffer.memory
 * and the Sends waiting for room (max.block.ms); Sends waiting for metadata; flush waiters; with
 * enable.idempotence, the producer id and epoch and each partition's next sequence number; the
 * metrics' samples; with enable.metrics.push, its telemetry push loop (KIP-714,
 * src/client/telemetry-loop.ts: the subscription, what was last pushed, the timer, the
 * clientInstanceId calls waiting for the id).
 * Handles: Send, Flush, Close (answered once flushed and, with telemetry, after the terminating
 * push), DescribeProducer, Metrics (Kafka's producer-metrics, producer-metrics.ts),
 * GetClientInstanceId (answered once the id is known, telemetry stopped, or its timeout passed),
 * and internal Drain, ProduceDone, MetadataResult, BlockTimeout, ProducerIdResult, TelemetryTick,
 * TelemetryAnswer, ClientInstanceIdDeadline.
 * Emits: Produce to leader brokers, one request per broker for many partitions, several
 * batches of a partition in one entry unless idempotent (ask, or tell for acks 0); Metadata
 * and InitProducerId to brokers; GetTelemetrySubscriptions and PushTelemetry to a broker (its
 * metrics under KIP-714's names, with transactional_id as a resource attribute); SendResult,
 * Flushed, ProducerMetrics, ClientInstanceId.
 */
import { DefaultPartitioner, type PartitionRequest } from '../../src/client/partitioner.js';
import { MetadataCache, type BootstrapBroker } from '../../src/client/metadata-cache.js';
import { ErrorCode, errorName, isRetriable } from '../../src/protocol/errors.js';
import { ATTRIBUTES_OFFSET, TRANSACTIONAL_FLAG_MASK, readInt16BE, setProducerState, writeInt16BE } from '../../src/protocol/batch-header.js';
import { RecordBatchBuilder, batchBufferSize } from '../../src/protocol/record-batch.js';
import type { BaseContext, ReplyToken } from '../../src/runtime/actor-definition.js';
import { defineActor } from '../../src/runtime/actor-definition.js';
import { ChurnTable } from '../../src/runtime/churn-table.js';
import { isFailure, type Failure } from '../../src/runtime/types.js';
import { assertNever } from '../../src/runtime/assert-never.js';
import { TRANSACTION_VERSION, finalizedLevel } from '../../src/protocol/features.js';
import type { BrokerMsg, BrokerProduceResponse, InitProducerIdResult, MetadataResponse, ProducePartition } from '../broker/messages.js';
import type { ProducerDescription, ProducerMetricsReply, ProducerMsg, ProducerRecord, RecordMetadata, SendResult, TopicRecords, TxnResult, TxnRpcOp } from './messages.js';
import { BatchBufferPool } from './buffer-pool.js';
import { ProducerMetrics, type TopicMetrics } from './producer-metrics.js';
import { parseProducerConfig, producerCompressionLevel, type ProducerConfig } from './producer-config.js';
import { isFatalTxnError, newTxnManager, refusal, type TxnManager, type TxnPartitionState } from './transactions.js';
import { askTxnCoordinator, txnOffsetCommit, type TxnRpcEnv, type TxnRpcResult } from './txn-rpc.js';
import {
  closeTelemetry,
  describeTelemetry,
  startTelemetry,
  telemetryHandlers,
  whenTelemetryClosed,
  type TelemetryHost,
  type TelemetryLoop,
} from '../../src/client/telemetry-loop.js';
import type { ClientMetric } from '../../src/client/metrics.js';

export interface ProducerArgs {
  bootstrap: BootstrapBroker[];
  /** Kafka's producer config names (acks, batch.size, linger.ms, buffer.memory, ...). */
  config?: Record<string, unknown>;
  /** For tests: a deterministic source for the sticky partitioner. */
  random?: () => number;
}

/** One Send being answered: how many records are still out, and what came back (per partition queue). */
interface SendTracker {
  token: ReplyToken | undefined;
  remaining: number;
  bytes: number;
  results: Map<PartitionQueue, RecordMetadata>;
  firstError: { errorCode: number; message: string } | null;
}

/** A run of consecutive records of one Send in a batch: what a delivery report needs, no per-record objects. */
interface BatchSegment {
  send: SendTracker;
  /** Index of the run's first record in the batch. */
  first: number;
  count: number;
}

interface ProducerBatch {
  id: number;
  q: PartitionQueue;
  topic: string;
  partition: number;
  /** The records, written as they are admitted; null once built into `encoded`. */
  builder: RecordBatchBuilder | null;
  count: number;
  segments: BatchSegment[];
  /** Estimated size (what batch.size is checked against). */
  bytes: number;
  /** The largest record's estimated size (record-size-max). */
  maxRecord: number;
  /** Its size as built over its size before compression (compression-rate-avg); 1 until built. */
  compressionRatio: number;
  createdAt: number;
  deadline: number;
  attempts: number;
  retryAt: number;
  encoded: Buffer | null;
  /** The pool's buffer `encoded` is a view of, given back when the batch is done with. */
  pooled: Buffer | null;
  /** enable.idempotence: the batch's first sequence number once first sent (-1 before). */
  seq: number;
}

interface PartitionQueue {
  topic: string;
  partition: number;
  open: ProducerBatch | null;
  ready: ProducerBatch[];
  inFlight: number;
  /** enable.idempotence: the sequence number the next batch gets. */
  nextSeq: number;
  /** enable.idempotence: batches given a sequence and not yet settled, in sequence order. */
  sequenced: ProducerBatch[];
  /** In `s.active` (a flag, so a record need not pay a Set lookup to find out). */
  active: boolean;
  /** transactional.id: the partition's place in the ongoing transaction (sent only once Added). */
  txnAdd: TxnPartitionState;
  /** Its topic's metrics (producer-topic-metrics), from its first batch sent or failed. */
  topicMetrics: TopicMetrics | null;
}

/**
 * A Produce in flight. `batches` in request order; the batches of one partition are
 * consecutive and share one entry of the request's `partitions` (`slot`), their records
 * concatenated: batch i starts `delta[i]` records after that entry's base offset.
 */
interface ProduceInFlight {
  brokerId: number;
  /** When it went out (request-latency). */
  sentAt: number;
  batches: ProducerBatch[];
  slot: number[];
  delta: number[];
}

interface BlockedSend {
  topics: TopicRecords[];
  token: ReplyToken | undefined;
  bytes: number;
  deadline: number;
}

export interface ProducerState {
  config: ProducerConfig;
  /** The level batches are compressed at (compression.<codec>.level of compression.type; none for snappy). */
  compressionLevel: number | undefined;
  /** Free batch buffers for the next batches. */
  pool: BatchBufferPool;
  metadata: MetadataCache;
  metadataInFlight: boolean;
  awaitingMetadata: BlockedSend[];
  partitioner: DefaultPartitioner;
  /** Partition queues by topic, indexed by partition (the per-record lookup). */
  topicQueues: Map<string, PartitionQueue[]>;
  /** When the drain timer is due (Infinity: not set), so drain restarts it only when that changes. */
  drainAt: number;
  /** A Drain to self is in the mailbox (scheduleDrain). */
  drainQueued: boolean;
  /** Queues holding an open or ready batch: the only ones drain has to look at. */
  active: Set<PartitionQueue>;
  /** Produce requests in flight: request id -> its broker and batches. */
  inFlight: ChurnTable<number, ProduceInFlight>;
  brokerInFlight: Map<number, number>;
  nextRequestId: number;
  bufferUsed: number;
  blocked: BlockedSend[];
  flushWaiters: ReplyToken[];
  flushing: boolean;
  closing: boolean;
  nextBatchId: number;
  /** Counts batches opened and closed: a Send that changed neither has nothing new for drain. */
  batchEvents: number;
  /** enable.idempotence: this producer's id and epoch (-1 until a broker answers InitProducerId). */
  producerId: number;
  producerEpoch: number;
  producerIdRequested: boolean;
  /**
   * enable.idempotence: a batch failed after getting its sequence, so the partition's later
   * sequences have a gap. Sending stops; once nothing is in flight the producer takes a new id and
   * numbers every unsettled batch again from 0 (Kafka bumps the epoch for the same reason).
   */
  sequenceResetPending: boolean;
  /** transactional.id: the transaction state (null: not a transactional producer). */
  txn: TxnManager<PartitionQueue> | null;
  metrics: ProducerMetrics;
  /** enable.metrics.push: the telemetry push loop (null without). */
  telemetry: TelemetryLoop | null;
}

const RECORD_OVERHEAD = 22;
const BATCH_OVERHEAD = 61;
const DRAIN_TIMER = 'drain';
const BLOCK_TIMER = 'block';
const METADATA_TIMER = 'metadata';
const METADATA_RETRY_TIMER = 'metadata-retry';
const PRODUCER_ID_RETRY_TIMER = 'producer-id-retry';
/** Answers after which the partition's leader is looked up again (Kafka's InvalidMetadataException family). */
const STALE_METADATA = new Set<number>([
  ErrorCode.NOT_LEADER_OR_FOLLOWER,
  ErrorCode.KAFKA_STORAGE_ERROR,
  ErrorCode.LEADER_NOT_AVAILABLE,
  ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  ErrorCode.FENCED_LEADER_EPOCH,
  ErrorCode.UNKNOWN_LEADER_EPOCH,
  ErrorCode.NETWORK_EXCEPTION,
]);

function recordSize(r: ProducerRecord): number {
  let n = RECORD_OVERHEAD + (r.key?.length ?? 0) + (r.value?.length ?? 0);
  const headers = r.headers;
  if (headers) for (const h of headers) n += 6 + Buffer.byteLength(h.key) + (h.value?.length ?? 0);
  return n;
}

/** Checks a Send before anything is queued: its estimated bytes (for buffer.memory), or an error message. */
function validateSend(s: ProducerState, topics: TopicRecords[]): number | string {
  if (!Array.isArray(topics) || topics.length === 0) return 'a send needs at least one topic with messages';
  let bytes = 0;
  for (const t of topics) {
    if (typeof t.topic !== 'string' || t.topic.length === 0) return 'every send names a topic';
    if (!Array.isArray(t.messages) || t.messages.length === 0) return `no messages for topic ${t.topic}`;
    for (const m of t.messages) {
      if (m.value !== null && !(m.value instanceof Uint8Array)) return `a message value for ${t.topic} is neither bytes nor null`;
      if (m.key !== undefined && m.key !== null && !(m.key instanceof Uint8Array)) return `a message key for ${t.topic} is neither bytes nor null`;
      if (m.timestamp !== undefined && !Number.isSafeInteger(m.timestamp)) return `a message timestamp for ${t.topic} is not an integer number of milliseconds`;
      if (m.headers !== undefined) {
        if (!Array.isArray(m.headers)) return `message headers for ${t.topic} are not a list`;
        for (const h of m.headers) if (typeof h?.key !== 'string') return `a header key for ${t.topic} is not a string`;
      }
      const size = recordSize(m);
      if (size + BATCH_OVERHEAD > s.config.maxRequestSize) return `a record of ${size} bytes exceeds max.request.size ${s.config.maxRequestSize}`;
      bytes += size;
    }
  }
  return bytes;
}

function queuesOf(s: ProducerState, topic: string): PartitionQueue[] {
  let qs = s.topicQueues.get(topic);
  if (!qs) s.topicQueues.set(topic, (qs = []));
  return qs;
}

/** Batches of a partition not yet in a request: the ready ones and the open one (Kafka's queue size). */
function waitingBatches(s: ProducerState, topic: string, partition: number): number {
  const q = s.topicQueues.get(topic)?.[partition];
  return q ? q.ready.length + (q.open ? 1 : 0) : 0;
}

/** Puts a queue in the set the drain goes through (it has an open batch or batches to send). */
function activate(s: ProducerState, q: PartitionQueue): void {
  q.active = true;
  s.active.add(q);
}

function queueIn(s: ProducerState, qs: PartitionQueue[], topic: string, partition: number): PartitionQueue {
  let q = qs[partition];
  if (!q) {
    q = { topic, partition, open: null, ready: [], inFlight: 0, nextSeq: 0, sequenced: [], active: false, txnAdd: 'None', topicMetrics: null };
    qs[partition] = q;
  }
  return q;
}

function newBatch(s: ProducerState, q: PartitionQueue, now: number): ProducerBatch {
  s.batchEvents++;
  return {
    id: s.nextBatchId++,
    q,
    topic: q.topic,
    partition: q.partition,
    builder: new RecordBatchBuilder(s.config.batchSize, s.pool.take()),
    count: 0,
    segments: [],
    bytes: BATCH_OVERHEAD,
    maxRecord: 0,
    compressionRatio: 1,
    createdAt: now,
    deadline: now + s.config.deliveryTimeoutMs,
    attempts: 0,
    retryAt: 0,
    encoded: null,
    pooled: null,
    seq: -1,
  };
}

/** Partitions a keyless record may move through when the open batches it meets are full. */
const MAX_STICKY_MOVES = 2;

/**
 * Moves the open batch to the ready list, built. A `full` batch counts as batch.size toward the
 * sticky partition's run (partitioner.sticky.bytes). A batch closed before it was full (linger.ms
 * was up, a flush) ends the run: the producer is not filling batches, so a run would only keep
 * the records on one leader, and keyless records move on after each such batch as before.
 */
function closeOpenBatch(s: ProducerState, q: PartitionQueue, full: boolean): void {
  const b = q.open;
  if (!b) return;
  s.batchEvents++;
  q.ready.push(b);
  q.open = null;
  // built now, while its records are still in the CPU's caches: the build's CRC-32C reads all
  // of them, and at send time, behind other batches, they had to come from memory (1 KiB
  // records, alternating runs: +19%). An idempotent batch is built when it gets its sequence.
  if (!s.config.idempotent) encoded(s, b);
  const count = s.metadata.partitionCount(q.topic);
  const available = s.metadata.availablePartitions(q.topic);
  if (full) s.partitioner.onBatchClosed(q.topic, q.partition, Math.max(b.bytes, s.config.batchSize), count, available);
  else s.partitioner.onNewBatch(q.topic, q.partition, count, available);
}

/** Places every record of an admitted Send into its partition's batches, writing its bytes there and then. */
function admit(s: ProducerState, ctx: BaseContext<ProducerMsg>, send: BlockedSend): void {
  const now = ctx.clock.now();
  const tracker: SendTracker = { token: send.token, remaining: 0, bytes: send.bytes, results: new Map(), firstError: null };
  s.bufferUsed += send.bytes;
  // validate every explicit partition first: a Send is admitted whole or not at all
  for (const t of send.topics) {
    const count = s.metadata.partitionCount(t.topic);
    for (const m of t.messages) {
      const p = m.partition;
      if (p !== undefined && p !== null && (!Number.isInteger(p) || p < 0 || p >= count)) {
        s.bufferUsed -= send.bytes;
        reply(ctx, tracker.token, {
          type: 'SendResult',
          errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
          errorMessage: `Invalid partition given with record: ${p} is not in the range [0...${count}) of topic ${t.topic}`,
          results: [],
        });
        return;
      }
    }
  }
  for (const t of send.topics) tracker.remaining += t.messages.length;
  const batchSize = s.config.batchSize;
  // place record by record: a batch that fills up moves the sticky partition for the next ones
  for (const t of send.topics) {
    const qs = queuesOf(s, t.topic);
    // one request object per topic, reused for every record (no per-record allocation)
    const req: PartitionRequest = {
      topic: t.topic,
      numPartitions: s.metadata.partitionCount(t.topic),
      partition: null,
      key: null,
      availablePartitions: s.metadata.availablePartitions(t.topic),
    };
    const messages = t.messages;
    // a keyless record's partition is the sticky one, which only moves when a batch closes: it
    // is asked for once and its queue kept until any batch closes, not asked for per record
    let stickyQ: PartitionQueue | null = null;
    for (let i = 0; i < messages.length; i++) {
      const m = messages[i]!;
      const keyless = (m.partition === undefined || m.partition === null) && (m.key === undefined || m.key === null);
      let q: PartitionQueue;
      if (keyless && stickyQ !== null) q = stickyQ;
      else {
        req.partition = m.partition ?? null;
        req.key = m.key ?? null;
        q = queueIn(s, qs, t.topic, s.partitioner.partition(req));
        if (keyless) stickyQ = q;
      }
      const size = recordSize(m);
      let b = q.open;
      // A keyless record that does not fit closes its partition's batch. When that completes the
      // sticky partition's run (partitioner.sticky.bytes), the record goes to the new sticky
      // partition (Kafka's abortOnNewBatch), not into a batch of its own behind the full one,
      // which would go out nearly empty after linger.ms; otherwise into the run's next batch.
      for (let moves = 0; b && b.count > 0 && b.bytes + size > batchSize; moves++) {
        closeOpenBatch(s, q, true);
        stickyQ = null;
        req.availablePartitions = s.metadata.availablePartitions(t.topic);
        b = null;
        if (!keyless || moves === MAX_STICKY_MOVES) break;
        req.partition = null;
        req.key = null;
        q = stickyQ = queueIn(s, qs, t.topic, s.partitioner.partition(req));
        b = q.open;
      }
      if (!b) b = q.open = newBatch(s, q, now);
      if (!q.active) activate(s, q);
      b.builder!.append(m.key, m.value, m.headers, m.timestamp ?? now);
      const last = b.segments.length > 0 ? b.segments[b.segments.length - 1]! : null;
      if (last && last.send === tracker) last.count++;
      else b.segments.push({ send: tracker, first: b.count, count: 1 });
      b.count++;
      b.bytes += size;
      if (size > b.maxRecord) b.maxRecord = size;
      if (b.bytes >= batchSize) {
        closeOpenBatch(s, q, true);
        stickyQ = null;
      }
    }
  }
}

function reply(ctx: BaseContext<ProducerMsg>, token: ReplyToken | undefined, r: SendResult): void {
  if (token) ctx.replyTo(token, r);
}

/** Settles one Send's run of records in a batch. */
function settleSegment(s: ProducerState, ctx: BaseContext<ProducerMsg>, batch: ProducerBatch, seg: BatchSegment, errorCode: number, message: string, baseOffset: number, logAppendTime: number): void {
  const t = seg.send;
  const md = t.results.get(batch.q);
  if (!md) {
    const r: RecordMetadata = {
      topic: batch.topic,
      partition: batch.partition,
      errorCode,
      baseOffset: errorCode === ErrorCode.NONE && baseOffset >= 0 ? baseOffset + seg.first : -1,
      logAppendTime,
    };
    if (errorCode !== ErrorCode.NONE) r.errorMessage = message;
    t.results.set(batch.q, r);
  } else if (errorCode !== ErrorCode.NONE) {
    md.errorCode = errorCode;
    md.errorMessage = message;
  }
  if (errorCode !== ErrorCode.NONE && !t.firstError) t.firstError = { errorCode, message };
  t.remaining -= seg.count;
  if (t.remaining === 0) {
    s.bufferUsed -= t.bytes;
    const r: SendResult = { type: 'SendResult', errorCode: t.firstError?.errorCode ?? ErrorCode.NONE, results: [...t.results.values()] };
    if (t.firstError) r.errorMessage = t.firstError.message;
    reply(ctx, t.token, r);
  }
}

/**
 * Settles every Send with records in `b`. `recycle`: nothing can read the batch's bytes any
 * more (never sent, or sent once and answered by the broker), so its buffer goes back to the
 * pool; a batch sent with acks 0, or whose request got no answer, may still sit in a mailbox
 * on this node, which holds the bytes by reference.
 */
function completeBatch(s: ProducerState, ctx: BaseContext<ProducerMsg>, b: ProducerBatch, errorCode: number, message: string, recycle: boolean, baseOffset = -1, logAppendTime = -1): void {
  if (recycle) {
    if (b.pooled) s.pool.give(b.pooled);
    else if (b.builder) s.pool.give(b.builder.buffer);
  }
  b.pooled = null;
  if (b.seq >= 0) {
    const i = b.q.sequenced.indexOf(b);
    if (i >= 0) b.q.sequenced.splice(i, 1);
    // a sequenced batch that will never be written leaves a gap the partition cannot get past
    if (errorCode !== ErrorCode.NONE) s.sequenceResetPending = true;
  }
  if (errorCode !== ErrorCode.NONE) {
    const now = ctx.clock.now();
    s.metrics.failed(topicMetricsOf(s, b.q, now), b.count, now);
    if (s.txn !== null) onTxnBatchFailed(s, ctx, s.txn, errorCode, message);
  }
  for (const seg of b.segments) settleSegment(s, ctx, b, seg, errorCode, message, baseOffset, logAppendTime);
}

/** The metrics of a partition queue's topic, looked up once per queue. */
function topicMetricsOf(s: ProducerState, q: PartitionQueue, now: number): TopicMetrics {
  return (q.topicMetrics ??= s.metrics.topic(q.topic, now));
}

/** Kafka's sequence arithmetic: int32, wrapping to 0 after 2^31-1. */
function addSequence(seq: number, n: number): number {
  return (seq + n) % 2147483648;
}

/**
 * enable.idempotence: may batches be sent now? Not before the producer has an id, nor while a
 * sequence reset waits for the requests in flight; the reset itself renumbers unsettled batches.
 */
function idempotenceReady(s: ProducerState, ctx: BaseContext<ProducerMsg>): boolean {
  if (!s.config.idempotent) return true;
  // transactional: the producer id comes from the transaction coordinator (BeginTxn); a sequence
  // gap makes the transaction abortable, and the abort takes a new epoch
  if (s.txn !== null) return s.producerId >= 0 && !s.sequenceResetPending;
  if (s.sequenceResetPending) {
    if (s.inFlight.size > 0) return false;
    s.sequenceResetPending = false;
    s.producerId = -1;
    for (const qs of s.topicQueues.values()) {
      for (const q of qs) {
        if (!q) continue;
        q.nextSeq = 0;
        for (const b of q.sequenced) b.seq = -1;
        q.sequenced = [];
      }
    }
    ctx.log.info('idempotent producer: renumbering unsettled batches under a new producer id');
  }
  if (s.producerId >= 0) return true;
  if (!s.producerIdRequested) {
    s.producerIdRequested = true;
    void ctx.ask<InitProducerIdResult>(s.metadata.nextBroker<BrokerMsg>(), { type: 'InitProducerId' }, { timeoutMs: s.config.requestTimeoutMs }).then((r) => {
      if (isFailure(r)) ctx.send(ctx.self, { type: 'ProducerIdResult', errorCode: r.errorCode, errorMessage: r.message, producerId: -1, producerEpoch: -1 });
      else ctx.send(ctx.self, { type: 'ProducerIdResult', errorCode: r.errorCode, errorMessage: r.errorMessage, producerId: r.producerId, producerEpoch: r.producerEpoch });
    });
  }
  return false;
}

/** enable.idempotence: gives a batch its sequence the first time it is sent (retries keep it). */
function sequence(s: ProducerState, b: ProducerBatch): void {
  if (b.seq >= 0) return;
  const q = b.q;
  b.seq = q.nextSeq;
  q.nextSeq = addSequence(q.nextSeq, b.count);
  const bytes = encoded(s, b);
  // transactional.id: the batch belongs to the ongoing transaction (setProducerState writes the CRC after)
  if (s.txn !== null) writeInt16BE(bytes, ATTRIBUTES_OFFSET, readInt16BE(bytes, ATTRIBUTES_OFFSET) | TRANSACTIONAL_FLAG_MASK);
  setProducerState(bytes, 0, s.producerId, s.producerEpoch, b.seq);
  q.sequenced.push(b);
}

function pendingRecords(s: ProducerState): boolean {
  return s.inFlight.size > 0 || s.blocked.length > 0 || s.awaitingMetadata.length > 0 || s.active.size > 0;
}

function refreshMetadata(s: ProducerState, ctx: BaseContext<ProducerMsg>): void {
  if (s.metadataInFlight) return;
  s.metadataInFlight = true;
  void ctx.ask<MetadataResponse>(s.metadata.nextBroker(), { type: 'Metadata' }, { timeoutMs: s.config.requestTimeoutMs }).then((r) => {
    if (isFailure(r)) ctx.send(ctx.self, { type: 'MetadataResult', metadata: null, errorCode: r.errorCode });
    else ctx.send(ctx.self, { type: 'MetadataResult', metadata: r.metadata, errorCode: r.errorCode });
  });
}

/** The bytes of a batch, built once (a retry resends the same bytes). */
function encoded(s: ProducerState, b: ProducerBatch): Buffer {
  if (!b.encoded) {
    const builder = b.builder!;
    const raw = builder.sizeInBytes;
    b.encoded = builder.build(s.config.compressionType, s.compressionLevel);
    if (raw > 0) b.compressionRatio = b.encoded.length / raw;
    // built into a buffer of its own (compressed, or a tight copy of a small batch): the
    // builder's buffer is free at once; else it goes back when the batch is done with
    if (b.encoded.buffer === builder.buffer.buffer) b.pooled = builder.buffer;
    else s.pool.give(builder.buffer);
    b.builder = null;
  }
  return b.encoded;
}

/**
 * Sends one Produce to a broker with `entries`: batches in order, those of one partition
 * consecutive (one entry of the request: its batches' buffers, as a list when there are several).
 */
function sendRequest(s: ProducerState, ctx: BaseContext<ProducerMsg>, brokerId: number, entries: { q: PartitionQueue; b: ProducerBatch }[]): void {
  const ref = s.metadata.brokerRef<BrokerMsg>(brokerId)!;
  if (s.config.idempotent) for (const e of entries) sequence(s, e.b);
  const partitions: ProducePartition[] = [];
  const slot: number[] = [];
  const delta: number[] = [];
  const now = ctx.clock.now();
  let requestBytes = 0;
  let requestRecords = 0;
  for (let i = 0; i < entries.length; ) {
    const q = entries[i]!.q;
    let j = i + 1;
    while (j < entries.length && entries[j]!.q === q) j++;
    const parts: Buffer[] = [];
    let records = 0;
    for (let k = i; k < j; k++) {
      const b = entries[k]!.b;
      slot.push(partitions.length);
      delta.push(records);
      records += b.count;
      const bytes = encoded(s, b);
      parts.push(bytes);
      s.metrics.batchSent(topicMetricsOf(s, q, now), bytes.length, b.compressionRatio, b.count, b.bytes - BATCH_OVERHEAD, b.maxRecord, b.createdAt, now);
      requestBytes += bytes.length;
    }
    requestRecords += records;
    // several batches go as a list, not copied into one (here or on the broker: the log writes
    // a list with one gathering write, or one view when they arrive side by side)
    partitions.push({ topic: q.topic, partition: q.partition, records: parts.length === 1 ? parts[0]! : parts });
    i = j;
  }
  for (const e of entries) e.b.attempts++;
  s.metrics.requestSent(requestBytes, requestRecords, now);
  if (s.config.acks === 0) {
    ctx.send(ref, produceRequest(s, 0, partitions));
    for (const e of entries) completeBatch(s, ctx, e.b, ErrorCode.NONE, '', false);
    return;
  }
  const requestId = s.nextRequestId++;
  s.inFlight.set(requestId, { brokerId, sentAt: now, batches: entries.map((e) => e.b), slot, delta });
  s.brokerInFlight.set(brokerId, (s.brokerInFlight.get(brokerId) ?? 0) + 1);
  for (const e of entries) e.q.inFlight++;
  void ctx
    .ask<BrokerProduceResponse>(ref, produceRequest(s, s.config.acks, partitions), { timeoutMs: s.config.requestTimeoutMs + 5_000 })
    .then((response) => ctx.send(ctx.self, { type: 'ProduceDone', requestId, response }));
}

/**
 * A Produce of these partitions; a transactional producer names its id, so the brokers verify
 * its batches (KIP-890), and takes TRANSACTION_ABORTABLE (as a Produce v11+ client) for a
 * partition not in its transaction.
 */
function produceRequest(s: ProducerState, acks: 0 | 1 | -1, partitions: ProducePartition[]): Extract<BrokerMsg, { type: 'Produce' }> {
  const msg: Extract<BrokerMsg, { type: 'Produce' }> = { type: 'Produce', acks, timeoutMs: s.config.requestTimeoutMs, partitions };
  if (s.txn !== null) {
    msg.transactionalId = s.txn.transactionalId;
    msg.transactionAbortable = true;
    if (s.txn.version !== null && s.txn.version >= 2) msg.transactionV2 = true;
  }
  return msg;
}

/**
 * The ongoing transaction's transaction version: decided when it is first needed, from the
 * cluster's finalized transaction.version in the producer's metadata (2: KIP-890 part 2), and
 * kept until the transaction ends.
 */
function txnVersion(s: ProducerState, txn: TxnManager<PartitionQueue>): number {
  if (txn.version === null) txn.version = finalizedLevel(s.metadata.metadata?.features, TRANSACTION_VERSION) >= 2 ? 2 : 0;
  return txn.version;
}

function brokerFree(s: ProducerState, brokerId: number): boolean {
  return (s.brokerInFlight.get(brokerId) ?? 0) < s.config.maxInFlight;
}

/**
 * Sends what can be sent, as Kafka's sender does: one Produce per leader broker carrying the
 * head batch of each of its partitions, at most max.in.flight.requests.per.connection requests
 * per broker; unlike Kafka's, a request also carries the next ready batches of each partition
 * while it stays within max.request.size (not with enable.idempotence; see takeBatches), so
 * the bytes in flight are not capped at in-flight requests x partitions x batch.size.
 * Arranges a wake-up for lingering or backing-off batches.
 */
function drain(s: ProducerState, ctx: BaseContext<ProducerMsg>): void {
  const now = ctx.clock.now();
  let wakeAt = Infinity;
  const sendable = idempotenceReady(s, ctx);
  for (;;) {
    const perBroker = new Map<number, PartitionQueue[]>();
    for (const q of s.active) {
      // expire what waited past delivery.timeout.ms; the queue is in batch order, so deadlines
      // ascend and the scan stops at the first batch still in time (as Kafka's accumulator
      // does): a drain costs O(partitions), not O(batches waiting)
      while (q.ready.length > 0 && q.ready[0]!.deadline <= now) {
        const b = q.ready.shift()!;
        completeBatch(s, ctx, b, ErrorCode.REQUEST_TIMED_OUT, `delivery.timeout.ms ${s.config.deliveryTimeoutMs} expired after ${b.attempts} attempt(s)`, b.attempts === 0);
      }
      const leader = s.metadata.leaderId(q.topic, q.partition);
      const free = leader >= 0 && brokerFree(s, leader);
      // an open batch keeps filling while its broker has no room for another request
      if (q.open && q.ready.length === 0 && (free || leader < 0)) {
        const lingerDue = q.open.createdAt + s.config.lingerMs;
        if (lingerDue <= now || s.flushing || s.closing) closeOpenBatch(s, q, false);
        else wakeAt = Math.min(wakeAt, lingerDue);
      }
      const b = q.ready[0];
      if (!b) {
        if (!q.open) {
          q.active = false;
          s.active.delete(q);
        }
        continue;
      }
      wakeAt = Math.min(wakeAt, b.deadline);
      if (b.retryAt > now) {
        wakeAt = Math.min(wakeAt, b.retryAt);
        continue;
      }
      if (leader < 0) {
        refreshMetadata(s, ctx);
        b.retryAt = now + s.config.retryBackoffMs;
        wakeAt = Math.min(wakeAt, b.retryAt);
        continue;
      }
      if (s.txn !== null && q.txnAdd !== 'Added') {
        if (txnVersion(s, s.txn) >= 2) {
          // KIP-890 part 2: the broker adds the partition when its first batch comes
          q.txnAdd = 'Added';
          s.txn.partitions.push(q);
        } else {
          if (q.txnAdd === 'None') {
            q.txnAdd = 'Adding';
            s.txn.pendingAdd.push(q);
            s.txn.partitions.push(q);
          }
          continue;
        }
      }
      if (!free || !sendable) continue;
      let list = perBroker.get(leader);
      if (!list) perBroker.set(leader, (list = []));
      list.push(q);
    }
    if (perBroker.size === 0) break;
    for (const [brokerId, qs] of perBroker) sendRequest(s, ctx, brokerId, takeBatches(s, qs, now));
  }
  // restart the wake-up only when it must come sooner (a later one fires early, drains, and re-arms)
  if (wakeAt < Infinity) {
    if (wakeAt < s.drainAt || !ctx.timers.isActive(DRAIN_TIMER)) {
      s.drainAt = wakeAt;
      ctx.timers.startSingle(DRAIN_TIMER, Math.max(0, wakeAt - now), { type: 'Drain' });
    }
  } else if (s.drainAt !== Infinity) {
    s.drainAt = Infinity;
    ctx.timers.cancel(DRAIN_TIMER);
  }
  maybeFinishFlush(s, ctx);
}

/**
 * Takes one request's batches off the ready queues `qs` (partitions of one broker, each with a
 * sendable head batch): the head batch of each, then, round by round, the next ready batch of
 * each while the request stays within max.request.size (the first batch always goes). With
 * enable.idempotence only the heads, as Kafka's brokers take one batch per partition per
 * request from an idempotent producer. A partition's batches are taken in order, never
 * skipping one (a batch backing off or expired ends that partition's run). Returns the batches
 * grouped by partition, in batch order.
 */
function takeBatches(s: ProducerState, qs: PartitionQueue[], now: number): { q: PartitionQueue; b: ProducerBatch }[] {
  const rounds = s.config.idempotent ? 1 : Infinity;
  const taken = new Array<number>(qs.length).fill(0);
  let bytes = 0;
  let full = false;
  for (let round = 0; round < rounds && !full; round++) {
    let any = false;
    for (let k = 0; k < qs.length; k++) {
      if (taken[k] !== round) continue;
      const b = qs[k]!.ready[round];
      if (!b || (round > 0 && (b.retryAt > now || b.deadline <= now))) continue;
      const size = encoded(s, b).length;
      if (bytes > 0 && bytes + size > s.config.maxRequestSize) {
        full = true;
        break;
      }
      taken[k]!++;
      bytes += size;
      any = true;
    }
    if (!any) break;
  }
  const entries: { q: PartitionQueue; b: ProducerBatch }[] = [];
  for (let k = 0; k < qs.length; k++) {
    const q = qs[k]!;
    for (const b of q.ready.splice(0, taken[k]!)) entries.push({ q, b });
  }
  return entries;
}

/**
 * A drain after the messages already in the mailbox: a burst of Sends, or of answers from
 * brokers, costs one pass over the partitions with batches instead of one per message (with
 * 1,000 partitions those passes were a tenth of the client thread).
 */
function scheduleDrain(s: ProducerState, ctx: BaseContext<ProducerMsg>): void {
  if (s.drainQueued) return;
  s.drainQueued = true;
  ctx.send(ctx.self, { type: 'Drain' });
}

/** Puts a batch to retry back in its queue in batch order (keeps the partition's order). */
function requeue(s: ProducerState, q: PartitionQueue, b: ProducerBatch): void {
  activate(s, q);
  let i = 0;
  while (i < q.ready.length && q.ready[i]!.id < b.id) i++;
  q.ready.splice(i, 0, b);
}

function maybeFinishFlush(s: ProducerState, ctx: BaseContext<ProducerMsg>): void {
  if (s.txn !== null) {
    maybeAddPartitions(s, ctx, s.txn);
    maybeEndTxn(s, ctx, s.txn);
  }
  if (!s.flushing || pendingRecords(s)) return;
  s.flushing = false;
  const waiters = s.flushWaiters.splice(0);
  const answer = () => {
    for (const t of waiters) ctx.replyTo(t, { type: 'Flushed', errorCode: ErrorCode.NONE });
  };
  // closing: answered once the terminating push is done with too
  if (s.closing) whenTelemetryClosed(s.telemetry, answer);
  else answer();
}

/** Every metric now (Kafka's producer-metrics and producer-topic-metrics). */
function metricsNow(s: ProducerState, now: number): ClientMetric[] {
  return s.metrics.snapshot(now, s.config.clientId, {
    bufferTotalBytes: s.config.bufferMemory,
    bufferAvailableBytes: Math.max(0, s.config.bufferMemory - s.bufferUsed),
    waitingSends: s.blocked.length,
    requestsInFlight: s.inFlight.size,
    metadataAgeMs: now - s.metadata.updatedAt,
  });
}

/** What the telemetry push loop reads of the producer: its brokers, metrics, and KIP-714's producer label (transactional_id). */
function telemetryHost(s: ProducerState): TelemetryHost {
  return {
    brokers: () => s.metadata.brokerRefs(),
    metrics: (now) => metricsNow(s, now),
    labels: (): Record<string, string> => (s.config.transactionalId !== null ? { transactional_id: s.config.transactionalId } : {}),
  };
}

/** Admits blocked Sends in order while buffer.memory has room. */
function admitBlocked(s: ProducerState, ctx: BaseContext<ProducerMsg>): void {
  while (s.blocked.length > 0 && s.bufferUsed + s.blocked[0]!.bytes <= s.config.bufferMemory) {
    const send = s.blocked.shift()!;
    // a Send's deadline is max.block.ms after it came
    s.metrics.bufferWaited(ctx.clock.now() - (send.deadline - s.config.maxBlockMs));
    admit(s, ctx, send);
  }
  scheduleBlockTimer(s, ctx);
}

function scheduleBlockTimer(s: ProducerState, ctx: BaseContext<ProducerMsg>): void {
  const waiting = [...s.blocked, ...s.awaitingMetadata];
  if (waiting.length === 0) {
    ctx.timers.cancel(BLOCK_TIMER);
    return;
  }
  const next = Math.min(...waiting.map((b) => b.deadline));
  ctx.timers.startSingle(BLOCK_TIMER, Math.max(0, next - ctx.clock.now()), { type: 'BlockTimeout' });
}

/** A Send whose topics are all known: admit it now or block it on buffer.memory. */
function routeSend(s: ProducerState, ctx: BaseContext<ProducerMsg>, send: BlockedSend): void {
  if (send.bytes > s.config.bufferMemory) {
    reply(ctx, send.token, {
      type: 'SendResult',
      errorCode: ErrorCode.RECORD_LIST_TOO_LARGE,
      errorMessage: `the send needs ${send.bytes} bytes, more than buffer.memory ${s.config.bufferMemory}`,
      results: [],
    });
    return;
  }
  if (s.blocked.length > 0 || s.bufferUsed + send.bytes > s.config.bufferMemory) {
    s.blocked.push(send);
    scheduleBlockTimer(s, ctx);
    return;
  }
  admit(s, ctx, send);
}

// ---- transactional.id (see transactions.ts for the phases) ----

function txnEnv(s: ProducerState, ctx: BaseContext<ProducerMsg>): TxnRpcEnv {
  return {
    ask: <R>(to: Parameters<TxnRpcEnv['ask']>[0], msg: unknown, opts: Parameters<TxnRpcEnv['ask']>[2]) => ctx.ask(to, msg as never, opts) as Promise<R | Failure>,
    clock: ctx.clock,
    anyBroker: () => s.metadata.nextBroker<BrokerMsg>(),
    retries: s.config.retries,
    retryBackoffMs: s.config.retryBackoffMs,
    requestTimeoutMs: s.config.requestTimeoutMs,
    maxBlockMs: s.config.maxBlockMs,
  };
}

/** Runs a coordinator request (with its retries) and hands its outcome back as TxnRpcDone. */
function startTxnRpc(ctx: BaseContext<ProducerMsg>, op: TxnRpcOp, run: () => Promise<TxnRpcResult>): void {
  void run().then(
    (result) => ctx.send(ctx.self, { type: 'TxnRpcDone', op, result }),
    (err: unknown) => ctx.send(ctx.self, { type: 'TxnRpcDone', op, result: { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: String(err), producerId: -1, producerEpoch: -1, coordinator: null } }),
  );
}

function txnReply(ctx: BaseContext<ProducerMsg>, txn: TxnManager<PartitionQueue>, errorCode: number, message?: string): void {
  const token = txn.token;
  txn.token = undefined;
  if (!token) return;
  const r: TxnResult = { type: 'TxnResult', errorCode };
  if (message !== undefined && errorCode !== ErrorCode.NONE) r.errorMessage = message;
  ctx.replyTo(token, r);
}

/** Fails every batch not yet sent (open and ready) of the given queues, and the Sends not yet admitted. */
function failUnsent(s: ProducerState, ctx: BaseContext<ProducerMsg>, queues: Iterable<PartitionQueue>, errorCode: number, message: string): void {
  for (const q of [...queues]) {
    if (q.open) {
      const b = q.open;
      q.open = null;
      s.batchEvents++;
      completeBatch(s, ctx, b, errorCode, message, true);
    }
    for (const b of q.ready.splice(0)) completeBatch(s, ctx, b, errorCode, message, b.attempts === 0);
  }
  for (const list of [s.blocked, s.awaitingMetadata]) for (const b of list.splice(0)) reply(ctx, b.token, { type: 'SendResult', errorCode, errorMessage: message, results: [] });
  scheduleBlockTimer(s, ctx);
}

function becomeFatal(s: ProducerState, ctx: BaseContext<ProducerMsg>, txn: TxnManager<PartitionQueue>, errorCode: number, message: string): void {
  if (txn.phase === 'FatalError') return;
  ctx.log.warn('transactional producer: fatal error; no more transactions', { transactionalId: txn.transactionalId, errorCode, reason: message });
  txn.phase = 'FatalError';
  txn.error = { errorCode, message };
  failUnsent(s, ctx, s.active, errorCode, message);
  txnReply(ctx, txn, errorCode, message);
  scheduleDrain(s, ctx);
}

/** The ongoing transaction can no longer commit: it must be aborted. */
function becomeAbortable(s: ProducerState, ctx: BaseContext<ProducerMsg>, txn: TxnManager<PartitionQueue>, errorCode: number, message: string): void {
  if (txn.phase !== 'InTransaction' && txn.phase !== 'Committing') return;
  const committing = txn.phase === 'Committing';
  txn.phase = 'AbortableError';
  txn.error = { errorCode, message };
  if (committing) txnReply(ctx, txn, errorCode, `the transaction cannot commit and must be aborted: ${message}`);
  // batches waiting to join the transaction never will: their sends fail now, not at the abort
  failUnsent(s, ctx, txn.pendingAdd.splice(0), errorCode, `the transaction must be aborted: ${message}`);
}

function onTxnBatchFailed(s: ProducerState, ctx: BaseContext<ProducerMsg>, txn: TxnManager<PartitionQueue>, errorCode: number, message: string): void {
  // not in the transaction: the cluster's transaction.version may have changed under it, which
  // the next transaction must see
  if (errorCode === ErrorCode.TRANSACTION_ABORTABLE) refreshMetadata(s, ctx);
  if (txn.phase === 'Aborting' || txn.phase === 'FatalError') return;
  if (isFatalTxnError(errorCode)) becomeFatal(s, ctx, txn, errorCode, message);
  else becomeAbortable(s, ctx, txn, errorCode, message);
}

/** How BeginTxn, SendOffsetsToTxn and EndTxn answer their caller: a TxnResult (no errorMessage when none is given). */
function txnAnswerer(ctx: BaseContext<ProducerMsg>, token: ReplyToken | undefined): (errorCode: number, errorMessage?: string) => void {
  return (errorCode, errorMessage) => {
    if (!token) return;
    const r: TxnResult = { type: 'TxnResult', errorCode };
    if (errorMessage !== undefined) r.errorMessage = errorMessage;
    ctx.replyTo(token, r);
  };
}

/** Sends AddPartitionsToTxn for the partitions waiting for it (one request in flight). */
function maybeAddPartitions(s: ProducerState, ctx: BaseContext<ProducerMsg>, txn: TxnManager<PartitionQueue>): void {
  if (txn.adding.length > 0 || txn.pendingAdd.length === 0) return;
  if (txn.phase !== 'InTransaction' && txn.phase !== 'Committing') return;
  txn.adding = txn.pendingAdd.splice(0);
  const msg = {
    type: 'AddPartitionsToTxn' as const,
    transactionalId: txn.transactionalId,
    producerId: s.producerId,
    producerEpoch: s.producerEpoch,
    partitions: txn.adding.map((q) => ({ topic: q.topic, partition: q.partition })),
    version: 3,
  };
  toTxnCoordinator(s, ctx, txn, 'AddPartitionsToTxn', msg);
}

/** Sends `msg` to the transaction's coordinator (found again if it moved); the answer comes back as TxnRpcDone for `op`. */
function toTxnCoordinator(s: ProducerState, ctx: BaseContext<ProducerMsg>, txn: TxnManager<PartitionQueue>, op: TxnRpcOp, msg: Parameters<typeof askTxnCoordinator>[2]): void {
  const env = txnEnv(s, ctx);
  const coordinator = txn.coordinator;
  startTxnRpc(ctx, op, () => askTxnCoordinator(env, coordinator, msg));
}

/**
 * Commit or abort, once the transaction's batches are settled: EndTxn to the coordinator (none
 * when nothing joined the transaction). A commit that met an abortable error fails instead.
 */
function maybeEndTxn(s: ProducerState, ctx: BaseContext<ProducerMsg>, txn: TxnManager<PartitionQueue>): void {
  if ((txn.phase !== 'Committing' && txn.phase !== 'Aborting') || txn.rpcInFlight || txn.adding.length > 0) return;
  const commit = txn.phase === 'Committing';
  if (commit) {
    if (txn.pendingAdd.length > 0 || pendingRecords(s)) return;
  } else {
    // batches put back for a retry after the abort began are not sent again
    if (s.active.size > 0) failUnsent(s, ctx, s.active, ErrorCode.OPERATION_NOT_ATTEMPTED, 'the transaction was aborted before this batch was sent');
    if (s.inFlight.size > 0) return;
  }
  if (!txn.offsetsAdded && !txn.partitions.some((q) => q.txnAdd === 'Added')) {
    finishTxn(s, ctx, txn);
    return;
  }
  txn.rpcInFlight = true;
  // v5 (transaction version 2): the coordinator bumps the epoch and answers it
  const version = txnVersion(s, txn) >= 2 ? 5 : 3;
  const msg = { type: 'EndTxn' as const, transactionalId: txn.transactionalId, producerId: s.producerId, producerEpoch: s.producerEpoch, committed: commit, version };
  toTxnCoordinator(s, ctx, txn, 'EndTxn', msg);
}

/** The transaction ended: the producer is ready for the next one (with a new epoch after a sequence gap). */
function finishTxn(s: ProducerState, ctx: BaseContext<ProducerMsg>, txn: TxnManager<PartitionQueue>): void {
  for (const q of txn.partitions) q.txnAdd = 'None';
  for (const q of txn.pendingAdd) q.txnAdd = 'None';
  txn.partitions = [];
  txn.pendingAdd = [];
  txn.offsetsAdded = false;
  txn.error = null;
  txn.version = null;
  txn.phase = 'Ready';
  if (s.sequenceResetPending) {
    // a batch of the aborted transaction left a sequence gap: the next transaction starts with
    // InitProducerId again, which bumps the epoch, and every partition's sequence from 0
    s.sequenceResetPending = false;
    s.producerId = -1;
    s.producerEpoch = -1;
    resetSequences(s);
    txn.phase = 'Uninitialized';
  }
  txnReply(ctx, txn, ErrorCode.NONE);
}

function resetSequences(s: ProducerState): void {
  for (const qs of s.topicQueues.values()) {
    for (const q of qs) {
      if (!q) continue;
      q.nextSeq = 0;
      for (const b of q.sequenced) b.seq = -1;
      q.sequenced = [];
    }
  }
}

/** TxnOffsetCommit of a sendOffsets to the group's coordinator (after AddOffsetsToTxn, or at once with transaction version 2). */
function sendTxnOffsets(s: ProducerState, ctx: BaseContext<ProducerMsg>, txn: TxnManager<PartitionQueue>, offsets: NonNullable<TxnManager<PartitionQueue>['offsets']>): void {
  const env = txnEnv(s, ctx);
  const req = {
    transactionalId: txn.transactionalId,
    groupId: offsets.groupId,
    producerId: s.producerId,
    producerEpoch: s.producerEpoch,
    member: offsets.member,
    topics: offsets.topics.map((t) => ({ name: t.topic, partitions: t.partitions.map((p) => ({ partition: p.partition, offset: p.offset, metadata: p.metadata ?? null })) })),
    transactionV2: txnVersion(s, txn) >= 2,
  };
  const coordinator = txn.coordinator;
  startTxnRpc(ctx, 'SendOffsets', async () => ({ ...(await txnOffsetCommit(env, req)), producerId: -1, producerEpoch: -1, coordinator }));
}

function onTxnRpcDone(s: ProducerState, ctx: BaseContext<ProducerMsg>, txn: TxnManager<PartitionQueue>, op: TxnRpcOp, r: TxnRpcResult): void {
  txn.coordinator = r.coordinator;
  const ok = r.errorCode === ErrorCode.NONE;
  const message = r.errorMessage ?? errorName(r.errorCode);
  switch (op) {
    case 'InitProducerId':
      txn.rpcInFlight = false;
      if (ok) {
        s.producerId = r.producerId;
        s.producerEpoch = r.producerEpoch;
        resetSequences(s);
        txn.phase = 'InTransaction';
        ctx.log.debug('transactional producer id', { transactionalId: txn.transactionalId, producerId: r.producerId, producerEpoch: r.producerEpoch });
        txnReply(ctx, txn, ErrorCode.NONE);
      } else if (isFatalTxnError(r.errorCode) || !isRetriable(r.errorCode)) {
        becomeFatal(s, ctx, txn, r.errorCode, message);
      } else {
        txn.phase = 'Uninitialized';
        txnReply(ctx, txn, r.errorCode, message);
      }
      break;
    case 'AddPartitionsToTxn': {
      const adding = txn.adding;
      txn.adding = [];
      if (ok) {
        for (const q of adding) if (q.txnAdd === 'Adding') q.txnAdd = 'Added';
      } else if (isFatalTxnError(r.errorCode)) {
        becomeFatal(s, ctx, txn, r.errorCode, message);
      } else {
        const why = `AddPartitionsToTxn failed: ${message}`;
        becomeAbortable(s, ctx, txn, r.errorCode, why);
        // their batches can never be written in this transaction
        failUnsent(s, ctx, adding, r.errorCode, why);
      }
      break;
    }
    case 'AddOffsetsToTxn': {
      const offsets = txn.offsets;
      txn.offsets = null;
      if (!ok || !offsets) {
        txn.rpcInFlight = false;
        if (isFatalTxnError(r.errorCode)) becomeFatal(s, ctx, txn, r.errorCode, message);
        else {
          becomeAbortable(s, ctx, txn, r.errorCode, `AddOffsetsToTxn failed: ${message}`);
          txnReply(ctx, txn, r.errorCode, `AddOffsetsToTxn failed: ${message}`);
        }
        break;
      }
      txn.offsetsAdded = true;
      sendTxnOffsets(s, ctx, txn, offsets);
      break;
    }
    case 'SendOffsets':
      txn.rpcInFlight = false;
      if (ok) txnReply(ctx, txn, ErrorCode.NONE);
      else if (isFatalTxnError(r.errorCode)) becomeFatal(s, ctx, txn, r.errorCode, message);
      else {
        becomeAbortable(s, ctx, txn, r.errorCode, `TxnOffsetCommit failed: ${message}`);
        txnReply(ctx, txn, r.errorCode, `TxnOffsetCommit failed: ${message}`);
      }
      break;
    case 'EndTxn':
      txn.rpcInFlight = false;
      if (ok && txn.version !== null && txn.version >= 2 && r.producerId >= 0) {
        // KIP-890 part 2: the next transaction runs at the bumped epoch (or a new producer id),
        // every sequence from 0, which also closes any sequence gap of this one
        s.producerId = r.producerId;
        s.producerEpoch = r.producerEpoch;
        resetSequences(s);
        s.sequenceResetPending = false;
      }
      if (ok) finishTxn(s, ctx, txn);
      else if (isFatalTxnError(r.errorCode)) becomeFatal(s, ctx, txn, r.errorCode, message);
      else {
        // the coordinator could not be reached in time: the outcome is unknown; only an abort may follow
        const what = txn.phase === 'Committing' ? 'commit' : 'abort';
        txn.phase = 'AbortableError';
        txn.error = { errorCode: r.errorCode, message: `EndTxn (${what}) failed: ${message}` };
        txnReply(ctx, txn, r.errorCode, txn.error.message);
      }
      break;
    default:
      assertNever(op);
  }
  scheduleDrain(s, ctx);
}

export const producer = defineActor<ProducerState, ProducerMsg, ProducerArgs>({
  kind: 'producer',
  supervision: 'stop',

  init(ctx, args) {
    const config = parseProducerConfig(args.config ?? {});
    const bufferSize = batchBufferSize(config.batchSize);
    const s: ProducerState = {
      config,
      compressionLevel: producerCompressionLevel(config),
      // as many free batch buffers as buffer.memory holds
      pool: new BatchBufferPool(bufferSize, Math.floor(config.bufferMemory / bufferSize)),
      metadata: new MetadataCache(args.bootstrap),
      metadataInFlight: false,
      awaitingMetadata: [],
      partitioner: new DefaultPartitioner({
        switchAfterBytes: config.stickyBytes,
        ...(config.adaptivePartitioning ? { queueLength: (topic: string, partition: number) => waitingBatches(s, topic, partition) } : {}),
        ...(args.random ? { random: args.random } : {}),
      }),
      topicQueues: new Map(),
      drainAt: Infinity,
      drainQueued: false,
      active: new Set(),
      inFlight: new ChurnTable(),
      brokerInFlight: new Map(),
      nextRequestId: 1,
      bufferUsed: 0,
      blocked: [],
      flushWaiters: [],
      flushing: false,
      closing: false,
      nextBatchId: 1,
      batchEvents: 0,
      producerId: -1,
      producerEpoch: -1,
      producerIdRequested: false,
      sequenceResetPending: false,
      txn: config.transactionalId !== null ? newTxnManager<PartitionQueue>(config.transactionalId) : null,
      metrics: new ProducerMetrics({ windowMs: config.metricsSampleWindowMs, samples: config.metricsNumSamples }, ctx.clock.now()),
      telemetry: startTelemetry(config.enableMetricsPush, { clientId: config.clientId, requestTimeoutMs: config.requestTimeoutMs, retryBackoffMs: config.retryBackoffMs }, ctx, args.random ? { random: args.random } : {}),
    };
    refreshMetadata(s, ctx);
    if (s.config.metadataMaxAgeMs > 0) ctx.timers.startPeriodic(METADATA_TIMER, s.config.metadataMaxAgeMs, { type: 'Drain' });
    return s;
  },

  schema: { Send: { topics: 'array' } },

  handlers: {
    Send(s, m, ctx) {
      const token = ctx.deferReply();
      if (s.closing) {
        reply(ctx, token, { type: 'SendResult', errorCode: ErrorCode.NETWORK_EXCEPTION, errorMessage: 'the producer is closing', results: [] });
        return;
      }
      if (s.txn !== null && s.txn.phase !== 'InTransaction') {
        const r = refusal(s.txn, 'send');
        reply(ctx, token, { type: 'SendResult', errorCode: r.errorCode, errorMessage: r.message, results: [] });
        return;
      }
      const bytes = validateSend(s, m.topics);
      if (typeof bytes === 'string') {
        reply(ctx, token, { type: 'SendResult', errorCode: ErrorCode.INVALID_REQUEST, errorMessage: bytes, results: [] });
        return;
      }
      const send: BlockedSend = { topics: m.topics, token, bytes, deadline: ctx.clock.now() + s.config.maxBlockMs };
      if (m.topics.some((t) => !s.metadata.hasTopic(t.topic))) {
        s.awaitingMetadata.push(send);
        refreshMetadata(s, ctx);
        scheduleBlockTimer(s, ctx);
        return;
      }
      const before = s.batchEvents;
      routeSend(s, ctx, send);
      // records only added to open batches: whatever could be sent was sent by the last drain,
      // and the linger wake-up is already set (a drain per Send is O(active partitions) per Send)
      if (s.batchEvents !== before) scheduleDrain(s, ctx);
    },

    Flush(s, _m, ctx) {
      const token = ctx.deferReply();
      if (token) s.flushWaiters.push(token);
      s.flushing = true;
      drain(s, ctx);
    },

    Close(s, _m, ctx) {
      const token = ctx.deferReply();
      if (token) s.flushWaiters.push(token);
      s.closing = true;
      s.flushing = true;
      // as Kafka's producer, the terminating push goes out as the close begins
      closeTelemetry(s.telemetry, telemetryHost(s), ctx);
      drain(s, ctx);
    },

    ...telemetryHandlers(telemetryHost),

    Drain(s, _m, ctx) {
      s.drainQueued = false;
      if (s.awaitingMetadata.length > 0 || ctx.clock.now() - s.metadata.updatedAt >= s.config.metadataMaxAgeMs) refreshMetadata(s, ctx);
      drain(s, ctx);
    },

    BeginTxn(s, _m, ctx) {
      const token = ctx.deferReply();
      const txn = s.txn;
      const answer = txnAnswerer(ctx, token);
      if (txn === null) return answer(ErrorCode.INVALID_TXN_STATE, 'transactions need transactional.id');
      if (s.closing) return answer(ErrorCode.NETWORK_EXCEPTION, 'the producer is closing');
      if (txn.phase === 'Ready') {
        txn.phase = 'InTransaction';
        return answer(ErrorCode.NONE);
      }
      if (txn.phase !== 'Uninitialized') {
        const r = refusal(txn, 'begin a transaction');
        return answer(r.errorCode, r.message);
      }
      txn.phase = 'Initializing';
      txn.token = token;
      txn.rpcInFlight = true;
      const msg = { type: 'InitProducerId' as const, transactionalId: txn.transactionalId, transactionTimeoutMs: s.config.transactionTimeoutMs, producerId: -1, producerEpoch: -1, version: 4 };
      toTxnCoordinator(s, ctx, txn, 'InitProducerId', msg);
    },

    SendOffsetsToTxn(s, m, ctx) {
      const token = ctx.deferReply();
      const txn = s.txn;
      const answer = txnAnswerer(ctx, token);
      if (txn === null) return answer(ErrorCode.INVALID_TXN_STATE, 'transactions need transactional.id');
      if (txn.phase !== 'InTransaction') {
        const r = refusal(txn, 'sendOffsets');
        return answer(r.errorCode, r.message);
      }
      if (txn.rpcInFlight) return answer(ErrorCode.INVALID_TXN_STATE, 'sendOffsets: another sendOffsets of this transaction is in progress');
      if (typeof m.groupId !== 'string' || m.groupId.length === 0 || !Array.isArray(m.topics)) return answer(ErrorCode.INVALID_REQUEST, 'sendOffsets needs a consumerGroupId and topics');
      const member = m.member ?? null;
      if (member && (!Number.isSafeInteger(member.generationId) || member.generationId < -1 || typeof member.memberId !== 'string' || (member.groupInstanceId !== null && typeof member.groupInstanceId !== 'string'))) {
        return answer(ErrorCode.INVALID_REQUEST, 'sendOffsets: the consumer group metadata needs a generationId (-1 or more), a memberId and a groupInstanceId (or null)');
      }
      txn.token = token;
      txn.rpcInFlight = true;
      if (txnVersion(s, txn) >= 2) {
        // KIP-890 part 2: no AddOffsetsToTxn; the group coordinator's broker adds the offsets partition
        txn.offsetsAdded = true;
        return sendTxnOffsets(s, ctx, txn, { groupId: m.groupId, topics: m.topics, member });
      }
      txn.offsets = { groupId: m.groupId, topics: m.topics, member };
      const msg = { type: 'AddOffsetsToTxn' as const, transactionalId: txn.transactionalId, producerId: s.producerId, producerEpoch: s.producerEpoch, groupId: m.groupId, version: 3 };
      toTxnCoordinator(s, ctx, txn, 'AddOffsetsToTxn', msg);
    },

    EndTxn(s, m, ctx) {
      const token = ctx.deferReply();
      const txn = s.txn;
      const answer = txnAnswerer(ctx, token);
      const what = m.commit ? 'commit' : 'abort';
      if (txn === null) return answer(ErrorCode.INVALID_TXN_STATE, 'transactions need transactional.id');
      const allowed = txn.phase === 'InTransaction' || (!m.commit && txn.phase === 'AbortableError');
      if (!allowed) {
        const r = refusal(txn, what);
        return answer(r.errorCode, r.message);
      }
      if (txn.rpcInFlight) return answer(ErrorCode.INVALID_TXN_STATE, `${what}: a sendOffsets of this transaction is in progress`);
      txn.token = token;
      if (m.commit) {
        txn.phase = 'Committing';
        // every batch of the transaction goes now, without lingering
        s.flushing = true;
      } else {
        txn.phase = 'Aborting';
        failUnsent(s, ctx, s.active, ErrorCode.OPERATION_NOT_ATTEMPTED, 'the transaction was aborted before this batch was sent');
      }
      drain(s, ctx);
    },

    TxnRpcDone(s, m, ctx) {
      if (s.txn !== null) onTxnRpcDone(s, ctx, s.txn, m.op, m.result);
    },

    ProducerIdResult(s, m, ctx) {
      s.producerIdRequested = false;
      if (m.errorCode === ErrorCode.NONE && m.producerId >= 0) {
        s.producerId = m.producerId;
        s.producerEpoch = m.producerEpoch;
        ctx.log.debug('idempotent producer id', { producerId: m.producerId, producerEpoch: m.producerEpoch });
      } else {
        ctx.log.debug('no producer id yet; asking again', { errorCode: m.errorCode, reason: m.errorMessage });
        ctx.timers.startSingle(PRODUCER_ID_RETRY_TIMER, s.config.retryBackoffMs, { type: 'Drain' });
        return;
      }
      drain(s, ctx);
    },

    ProduceDone(s, m, ctx) {
      const req = s.inFlight.get(m.requestId);
      if (!req) return;
      s.inFlight.delete(m.requestId);
      s.brokerInFlight.set(req.brokerId, (s.brokerInFlight.get(req.brokerId) ?? 1) - 1);
      const r = m.response;
      const now = ctx.clock.now();
      s.metrics.responseReceived(now - req.sentAt, now);
      let stale = false;
      for (let i = 0; i < req.batches.length; i++) {
        const b = req.batches[i]!;
        const q = b.q;
        q.inFlight--;
        let code: number;
        let message: string;
        let result: { baseOffset: number; logAppendTime: number } | null = null;
        if (isFailure(r)) {
          // the broker is gone or unreachable: stale metadata
          code = r.reason === 'unknown-actor' || r.reason === 'actor-stopped' ? ErrorCode.NOT_LEADER_OR_FOLLOWER : r.errorCode;
          message = r.message;
        } else {
          // the broker answers in request order: look there first (a search per batch is O(n^2) for big requests)
          const at = r.partitions[req.slot[i]!];
          const pr = at && at.topic === b.topic && at.partition === b.partition ? at : r.partitions.find((p) => p.topic === b.topic && p.partition === b.partition);
          code = pr ? pr.errorCode : ErrorCode.UNKNOWN_SERVER_ERROR;
          message = pr?.errorMessage ?? errorName(code);
          if (pr && code === ErrorCode.NONE) result = { baseOffset: pr.baseOffset >= 0 ? pr.baseOffset + req.delta[i]! : pr.baseOffset, logAppendTime: pr.logAppendTime };
        }
        const mayRetry = b.attempts <= s.config.retries && now < b.deadline;
        if (result) {
          completeBatch(s, ctx, b, ErrorCode.NONE, '', b.attempts === 1, result.baseOffset, result.logAppendTime);
        } else if (s.config.idempotent && code === ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER && q.sequenced[0] !== b && mayRetry) {
          // an earlier batch of the partition is being retried: this one follows it again
          b.retryAt = now;
          requeue(s, q, b);
          s.metrics.retried(topicMetricsOf(s, q, now), b.count, now);
        } else if (s.config.idempotent && s.txn === null && (code === ErrorCode.UNKNOWN_PRODUCER_ID || code === ErrorCode.INVALID_PRODUCER_EPOCH) && mayRetry) {
          // the leader does not know this producer (or fenced its epoch): retry under a new id
          ctx.log.warn('idempotent producer: the leader refused our producer id; taking a new one', { topic: b.topic, partition: b.partition, errorCode: code });
          s.sequenceResetPending = true;
          b.retryAt = now;
          requeue(s, q, b);
          s.metrics.retried(topicMetricsOf(s, q, now), b.count, now);
        } else if (isRetriable(code) && mayRetry) {
          ctx.log.debug('retrying batch', { topic: b.topic, partition: b.partition, errorCode: code, attempts: b.attempts });
          b.retryAt = now + s.config.retryBackoffMs;
          requeue(s, q, b);
          s.metrics.retried(topicMetricsOf(s, q, now), b.count, now);
          if (STALE_METADATA.has(code)) stale = true;
        } else {
          completeBatch(s, ctx, b, code, message, b.attempts === 1 && !isFailure(r));
        }
      }
      if (stale) refreshMetadata(s, ctx);
      admitBlocked(s, ctx);
      scheduleDrain(s, ctx);
    },

    MetadataResult(s, m, ctx) {
      s.metadataInFlight = false;
      if (m.metadata && m.errorCode === ErrorCode.NONE) s.metadata.update(m.metadata, ctx.clock.now());
      const waiting = s.awaitingMetadata.splice(0);
      const now = ctx.clock.now();
      for (const send of waiting) {
        const missing = send.topics.filter((t) => !s.metadata.hasTopic(t.topic)).map((t) => t.topic);
        if (missing.length === 0) routeSend(s, ctx, send);
        else if (now >= send.deadline) {
          reply(ctx, send.token, {
            type: 'SendResult',
            errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
            errorMessage: `topic(s) ${missing.join(', ')} not present in metadata after max.block.ms ${s.config.maxBlockMs}`,
            results: [],
          });
        } else s.awaitingMetadata.push(send);
      }
      // topics still unknown: ask again after retry.backoff.ms (Drain refreshes while Sends wait)
      if (s.awaitingMetadata.length > 0) ctx.timers.startSingle(METADATA_RETRY_TIMER, s.config.retryBackoffMs, { type: 'Drain' });
      scheduleBlockTimer(s, ctx);
      drain(s, ctx);
    },

    BlockTimeout(s, _m, ctx) {
      const now = ctx.clock.now();
      for (const [list, errorCode, why] of [
        [s.blocked, ErrorCode.REQUEST_TIMED_OUT, (_b: BlockedSend) => `buffer.memory ${s.config.bufferMemory} stayed full for max.block.ms ${s.config.maxBlockMs}`],
        [
          s.awaitingMetadata,
          ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
          (b: BlockedSend) =>
            `topic(s) ${b.topics
              .filter((t) => !s.metadata.hasTopic(t.topic))
              .map((t) => t.topic)
              .join(', ')} not present in metadata after max.block.ms ${s.config.maxBlockMs}`,
        ],
      ] as const) {
        for (let i = list.length - 1; i >= 0; i--) {
          const b = list[i]!;
          if (b.deadline > now) continue;
          list.splice(i, 1);
          reply(ctx, b.token, { type: 'SendResult', errorCode, errorMessage: why(b), results: [] });
        }
      }
      scheduleBlockTimer(s, ctx);
      maybeFinishFlush(s, ctx);
    },

    DescribeProducer(s, _m, ctx) {
      let queued = 0;
      for (const q of s.active) queued += q.ready.length + (q.open ? 1 : 0);
      ctx.reply({
        type: 'ProducerDescription',
        bufferUsed: s.bufferUsed,
        queuedBatches: queued,
        inFlightBatches: s.inFlight.values().reduce((n, r) => n + r.batches.length, 0),
        blockedSends: s.blocked.length,
        freeBatchBuffers: s.pool.available,
        metadataAgeMs: ctx.clock.now() - s.metadata.updatedAt,
        telemetry: describeTelemetry(s.telemetry),
      } satisfies ProducerDescription);
    },

    Metrics(s, _m, ctx) {
      ctx.reply({ type: 'ProducerMetrics', metrics: metricsNow(s, ctx.clock.now()) } satisfies ProducerMetricsReply);
    },
  },
});
