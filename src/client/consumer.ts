/**
 * The consumer's promise API: a thin layer over the consumer actor (actors/consumer), shaped
 * like KafkaJS's: connect, subscribe, run({ eachMessage | eachBatch }), an async iterator,
 * commitOffsets, seek, pause/resume, disconnect, and typed events.
 *
 * Delivery is at-least-once: an offset counts as processed only once the handler for that
 * record (or batch) has returned; auto-commit commits processed offsets; a handler that throws
 * has its record delivered again.
 */
import { EventEmitter } from 'node:events';
import { nanoid } from 'nanoid';
import { consumer as consumerActor } from '../../actors/consumer/consumer.js';
import { parseConsumerConfig } from '../../actors/consumer/consumer-config.js';
import type { ConsumedRecord, ConsumerDescription, ConsumerEvent, ConsumerMetricsReply, ConsumerMsg, PolledBatch, PollResult, TopicPartitionOffset } from '../../actors/consumer/messages.js';
import { defineActor } from '../runtime/actor-definition.js';
import { ErrorCode } from '../protocol/errors.js';
import type { ActorRef, Message } from '../runtime/types.js';
import { isFailure } from '../runtime/types.js';
import { awaitClientInstanceId } from './client-instance-id.js';
import { CommitFailedError, SamsaError } from './errors.js';
import type { ClientInstanceIdReply } from './telemetry-loop.js';
import type { ClientMetric } from './metrics.js';
import type { SamsaClient } from './samsa.js';

export interface KafkaMessage {
  offset: number;
  timestamp: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: Record<string, Buffer | null | (Buffer | null)[]>;
}

export interface EachMessagePayload {
  topic: string;
  partition: number;
  message: KafkaMessage;
}

/** A consumer's place in its group (Kafka's ConsumerGroupMetadata). */
export interface ConsumerGroupMetadata {
  groupId: string;
  /** The generation; with group.protocol consumer, the member epoch. */
  generationId: number;
  memberId: string;
  /** Its group.instance.id (static membership), null for a dynamic member. */
  groupInstanceId: string | null;
}

export interface Batch {
  topic: string;
  partition: number;
  /** The partition's end: its high watermark, or with isolation.level read_committed its last stable offset. */
  highWatermark: number;
  messages: KafkaMessage[];
}

export interface EachBatchPayload {
  batch: Batch;
  /** Marks everything up to and including `offset` as processed. */
  resolveOffset(offset: number): void;
  isRunning(): boolean;
}

export interface RunOptions {
  eachMessage?: (payload: EachMessagePayload) => Promise<void> | void;
  /** With eachBatch, only resolved offsets count as processed unless eachBatchAutoResolve (default true). */
  eachBatch?: (payload: EachBatchPayload) => Promise<void> | void;
  eachBatchAutoResolve?: boolean;
}

export interface ConsumerEvents {
  'group.join': Extract<ConsumerEvent, { kind: 'group.join' }>;
  rebalancing: Extract<ConsumerEvent, { kind: 'rebalancing' }>;
  'partitions.revoked': Extract<ConsumerEvent, { kind: 'partitions.revoked' }>;
  commit: Extract<ConsumerEvent, { kind: 'commit' }>;
  crash: Extract<ConsumerEvent, { kind: 'crash' }> | { kind: 'crash'; errorCode: number; message: string; error?: unknown };
  stop: Extract<ConsumerEvent, { kind: 'stop' }>;
}

type ListenerMsg = { type: 'ConsumerEvent'; event: ConsumerEvent };

const listener = defineActor<{ emitter: EventEmitter }, ListenerMsg, EventEmitter>({
  kind: 'consumer-listener',
  supervision: 'resume',
  init: (_ctx, emitter) => ({ emitter }),
  handlers: {
    ConsumerEvent: (s, m) => {
      s.emitter.emit(m.event.kind, m.event);
    },
  },
});

/** A Buffer over the same bytes (the decoder's views already are Buffers: no new object then). */
function asBuffer(b: Uint8Array | null): Buffer | null {
  return b === null ? null : Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

/**
 * Lets go of a delivered poll. Its result is reachable from objects made before the wait for it
 * (the ask's promise, the awaiting async frames); when the wait spanned two young-generation
 * collections those already sit in the old generation, and an old object keeps what it points
 * at alive through every young collection until the next full one, dead or not. Left in place,
 * every record of the poll would be copied and promoted; as polls go on, the consumer thread
 * then spends itself on collections and falls behind, which makes the next wait longer still.
 * Emptying the array cuts all those paths at once; records a handler kept stay its own.
 */
function releasePoll(batches: PolledBatch[]): void {
  for (const b of batches) b.records = [];
  batches.length = 0;
}

/**
 * The record as the application's message. A poll's records are this consumer's alone once the
 * consumer actor has handed them over, so each record object becomes its message in place (its
 * header list turned into KafkaJS's header object): one object per record instead of two.
 */
function toMessage(r: ConsumedRecord): KafkaMessage {
  const list = r.headers;
  if (!Array.isArray(list)) return r as unknown as KafkaMessage; // already turned into a message
  const headers: KafkaMessage['headers'] = {};
  for (let i = 0; i < list.length; i++) {
    const h = list[i]!;
    const v = asBuffer(h.value);
    const prev = headers[h.key];
    if (prev === undefined) headers[h.key] = v;
    else headers[h.key] = Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  const m = r as unknown as KafkaMessage;
  m.key = asBuffer(r.key);
  m.value = asBuffer(r.value);
  m.headers = headers;
  return m;
}

export class Consumer {
  private ref: ActorRef<ConsumerMsg> | null = null;
  private listenerRef: ActorRef<ListenerMsg> | null = null;
  private readonly emitter = new EventEmitter();
  private running = false;
  private loop: Promise<void> | null = null;
  private processed = new Map<string, TopicPartitionOffset>();
  private readonly maxPollRecords: number;
  private readonly groupId: string;
  private readonly groupInstanceId: string | null;

  constructor(
    private readonly client: SamsaClient,
    private readonly config: Record<string, unknown>,
  ) {
    // bad keys and values are the caller's error now, by name (ConsumerConfigError), not a
    // consumer actor that fails to start behind the next call
    const parsed = parseConsumerConfig(this.actorConfig());
    this.maxPollRecords = parsed.maxPollRecords;
    this.groupId = parsed.groupId;
    this.groupInstanceId = parsed.groupInstanceId === '' ? null : parsed.groupInstanceId;
  }

  /** The consumer actor's config: the client's id unless the caller set one. */
  private actorConfig(): Record<string, unknown> {
    return { 'client.id': this.client.clientId, ...this.config };
  }

  on<E extends keyof ConsumerEvents>(event: E, fn: (payload: ConsumerEvents[E]) => void): () => void {
    this.emitter.on(event, fn);
    return () => this.emitter.off(event, fn);
  }

  async connect(): Promise<void> {
    if (this.ref) return;
    const sys = this.client.system;
    this.listenerRef = sys.spawn(listener, { name: `consumer-events-${nanoid(8)}`, args: this.emitter });
    this.ref = sys.spawn(consumerActor, {
      name: `consumer-${nanoid(8)}`,
      args: { bootstrap: this.client.brokers, config: this.actorConfig(), listener: this.listenerRef },
    });
  }

  /** Topics by name or RegExp; fromBeginning starts groups without committed offsets at the earliest offset. */
  async subscribe(opts: { topics?: (string | RegExp)[]; topic?: string | RegExp; fromBeginning?: boolean }): Promise<void> {
    const all = [...(opts.topics ?? []), ...(opts.topic !== undefined ? [opts.topic] : [])];
    if (all.length === 0) throw new SamsaError(ErrorCode.INVALID_REQUEST, 'subscribe needs at least one topic or pattern');
    const names = all.filter((t): t is string => typeof t === 'string');
    const patterns = all.filter((t): t is RegExp => t instanceof RegExp);
    const pattern = patterns.length ? patterns.map((p) => `(?:${p.source})`).join('|') : null;
    const msg: ConsumerMsg = { type: 'Subscribe', topics: names, pattern };
    if (patterns[0]?.flags) msg.patternFlags = patterns[0].flags.replace(/[gy]/g, '');
    if (opts.fromBeginning !== undefined) msg.fromBeginning = opts.fromBeginning;
    const r = await this.client.system.ask<Message & { errorCode: number; errorMessage?: string }>(this.requireRef(), msg, { timeoutMs: 10_000 });
    if (isFailure(r)) throw new SamsaError(r.errorCode, r.message);
    if (r.errorCode !== ErrorCode.NONE) throw new SamsaError(r.errorCode, r.errorMessage);
  }

  /** Starts the processing loop; resolves once it runs. */
  async run(opts: RunOptions): Promise<void> {
    if (!opts.eachMessage && !opts.eachBatch) throw new SamsaError(ErrorCode.INVALID_REQUEST, 'run needs eachMessage or eachBatch');
    if (this.running) throw new SamsaError(ErrorCode.INVALID_REQUEST, 'the consumer is already running');
    this.requireRef();
    this.running = true;
    this.loop = this.runLoop(opts);
  }

  private async runLoop(opts: RunOptions): Promise<void> {
    // this frame lives as long as the consumer runs, so it soon sits in the old generation:
    // it never holds a poll's records across an await (deliver does), or every young-generation
    // collection while it waits for the next poll would keep the last poll's records alive
    while (this.running && (await this.deliver(opts)));
  }

  /** One poll and its delivery to the handlers; false once the consumer stopped. */
  private async deliver(opts: RunOptions): Promise<boolean> {
    const batches = await this.poll();
    if (batches === null) return false;
    try {
      await this.deliverBatches(opts, batches);
    } finally {
      releasePoll(batches);
    }
    return true;
  }

  private async deliverBatches(opts: RunOptions, batches: PolledBatch[]): Promise<void> {
    for (const b of batches) {
      if (!this.running) break;
      try {
        if (opts.eachBatch) await this.handleBatch(opts, b);
        else for (const r of b.records) {
          if (!this.running) break;
          await opts.eachMessage!({ topic: b.topic, partition: b.partition, message: toMessage(r) });
          this.mark(b.topic, b.partition, r.offset + 1);
        }
      } catch (error) {
        // redeliver from the first record not processed (at least once)
        const done = this.processed.get(`${b.topic}\u0000${b.partition}`)?.offset ?? b.records[0]!.offset;
        const from = Math.max(done, b.records[0]!.offset);
        this.emitter.emit('crash', { kind: 'crash', errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, message: `handler failed on ${b.topic}-${b.partition}@${from}: ${(error as Error)?.message}`, error });
        await this.seek({ topic: b.topic, partition: b.partition, offset: from });
        await new Promise((res) => setTimeout(res, 100));
        break;
      }
    }
  }

  private async handleBatch(opts: RunOptions, b: PolledBatch): Promise<void> {
    let resolved = -1;
    await opts.eachBatch!({
      batch: { topic: b.topic, partition: b.partition, highWatermark: b.highWatermark, messages: b.records.map(toMessage) },
      resolveOffset: (offset) => {
        resolved = Math.max(resolved, offset);
        this.mark(b.topic, b.partition, offset + 1);
      },
      isRunning: () => this.running,
    });
    if (opts.eachBatchAutoResolve ?? true) this.mark(b.topic, b.partition, b.records[b.records.length - 1]!.offset + 1);
    else if (resolved >= 0) this.mark(b.topic, b.partition, resolved + 1);
  }

  private mark(topic: string, partition: number, offset: number): void {
    this.processed.set(`${topic}\u0000${partition}`, { topic, partition, offset });
  }

  /** One poll: hands processed offsets over and returns the next records (null once stopped). */
  private async poll(): Promise<PolledBatch[] | null> {
    const processed = [...this.processed.values()];
    this.processed.clear();
    const r = await this.client.system.ask<PollResult>(this.requireRef(), { type: 'Poll', maxRecords: this.maxPollRecords, timeoutMs: 1_000, processed }, { timeoutMs: 30_000 });
    if (isFailure(r)) {
      if (!this.running) return null;
      this.emitter.emit('crash', { kind: 'crash', errorCode: r.errorCode, message: r.message });
      await new Promise((res) => setTimeout(res, 100));
      for (const p of processed) this.mark(p.topic, p.partition, p.offset);
      return [];
    }
    if (r.errorCode !== ErrorCode.NONE) {
      this.running = false;
      return null;
    }
    return r.batches;
  }

  /** Messages one by one; an offset counts as processed when the next one is asked for. */
  async *[Symbol.asyncIterator](): AsyncGenerator<EachMessagePayload> {
    this.requireRef();
    this.running = true;
    try {
      while (this.running) {
        const batches = await this.poll();
        if (batches === null) return;
        try {
          for (const b of batches) {
            for (const r of b.records) {
              yield { topic: b.topic, partition: b.partition, message: toMessage(r) };
              this.mark(b.topic, b.partition, r.offset + 1);
            }
          }
        } finally {
          releasePoll(batches);
        }
      }
    } finally {
      this.running = false;
    }
  }

  /** Commits offsets (the next offset to read, as Kafka does); without arguments, everything processed. */
  async commitOffsets(offsets?: TopicPartitionOffset[]): Promise<void> {
    const ref = this.requireRef();
    if (!offsets) {
      // hand over what was processed, then commit it
      const processed = [...this.processed.values()];
      offsets = processed.length ? processed : undefined;
    }
    const r = await this.client.system.ask<Message & { errorCode: number; errorMessage?: string }>(ref, { type: 'Commit', offsets: offsets ?? null }, { timeoutMs: 30_000 });
    const code = isFailure(r) ? r.errorCode : r.errorCode;
    if (code === ErrorCode.NONE) return;
    const message = isFailure(r) ? r.message : r.errorMessage;
    // STALE_MEMBER_EPOCH: with group.protocol consumer, the member's epoch moved on (or it was fenced) since it fetched
    if (code === ErrorCode.ILLEGAL_GENERATION || code === ErrorCode.UNKNOWN_MEMBER_ID || code === ErrorCode.REBALANCE_IN_PROGRESS || code === ErrorCode.STALE_MEMBER_EPOCH) {
      throw new CommitFailedError(code, `commit cannot be completed since the group has already rebalanced and assigned the partitions to another member (${message})`);
    }
    throw new SamsaError(code, message);
  }

  async seek(tp: { topic: string; partition: number; offset: number }): Promise<void> {
    this.processed.delete(`${tp.topic}\u0000${tp.partition}`);
    await this.client.system.ask(this.requireRef(), { type: 'Seek', ...tp }, { timeoutMs: 10_000 });
  }

  async pause(topics: { topic: string; partitions: number[] }[]): Promise<void> {
    await this.client.system.ask(this.requireRef(), { type: 'Pause', partitions: topics.flatMap((t) => t.partitions.map((partition) => ({ topic: t.topic, partition }))) }, { timeoutMs: 10_000 });
  }

  async resume(topics: { topic: string; partitions: number[] }[]): Promise<void> {
    await this.client.system.ask(this.requireRef(), { type: 'Resume', partitions: topics.flatMap((t) => t.partitions.map((partition) => ({ topic: t.topic, partition }))) }, { timeoutMs: 10_000 });
  }

  /**
   * The consumer's metrics, as Kafka's consumer.metrics() gives them: consumer-fetch-manager-metrics
   * (fetch-latency-avg, fetch-size-avg, records-per-request-avg, records-consumed-rate,
   * bytes-consumed-rate, records-lag-max, ...) and consumer-coordinator-metrics
   * (commit-latency-avg, commit-rate, assigned-partitions); averages, maxima and rates over the last
   * metrics.num.samples x metrics.sample.window.ms, totals over the consumer's life, NaN where
   * nothing was recorded yet.
   */
  async metrics(): Promise<ClientMetric[]> {
    const r = await this.client.system.ask<ConsumerMetricsReply>(this.requireRef(), { type: 'Metrics' }, { timeoutMs: 10_000 });
    if (isFailure(r)) throw new SamsaError(r.errorCode, r.message);
    return r.metrics;
  }

  async describe(): Promise<ConsumerDescription> {
    const r = await this.client.system.ask<ConsumerDescription>(this.requireRef(), { type: 'DescribeConsumer' }, { timeoutMs: 10_000 });
    if (isFailure(r)) throw new SamsaError(r.errorCode, r.message);
    return r;
  }

  /**
   * The id a broker gave this client instance for its metrics push (KIP-714, Kafka's
   * clientInstanceId(Duration)), waiting up to timeoutMs for it: null when none came in time or telemetry
   * stopped without one, as Kafka's. Throws RangeError for a negative timeout and
   * IllegalStateError with enable.metrics.push false. The client actor answers as soon as a broker gives it (client-instance-id.ts).
   */
  clientInstanceId(timeoutMs: number): Promise<string | null> {
    return awaitClientInstanceId(timeoutMs, (msg, askTimeoutMs) => this.client.system.ask<ClientInstanceIdReply>(this.requireRef(), msg, { timeoutMs: askTimeoutMs }));
  }

  /**
   * The consumer's place in its group now (Kafka's KafkaConsumer.groupMetadata()): for a
   * transaction's sendOffsets, so that the offsets of a member the group has moved on from are
   * refused (KIP-447). Generation -1 and member '' while it is not in the group (with
   * group.protocol consumer: generation -1 while it is not in the group, and its own member id).
   */
  async groupMetadata(): Promise<ConsumerGroupMetadata> {
    const d = await this.describe();
    return { groupId: this.groupId, generationId: d.generationId, memberId: d.memberId, groupInstanceId: this.groupInstanceId };
  }

  /** Stops the loop, commits what was processed (with auto-commit), leaves the group, stops the actors. */
  async disconnect(): Promise<void> {
    if (!this.ref) return;
    this.running = false;
    // a poll parked in the consumer actor is answered now, not when its time is up
    this.client.system.send(this.ref, { type: 'Wakeup' });
    await this.loop?.catch(() => undefined);
    const ref = this.ref;
    const processed = [...this.processed.values()];
    if (processed.length) await this.client.system.ask(ref, { type: 'Poll', maxRecords: 1, timeoutMs: 0, processed }, { timeoutMs: 10_000 });
    await this.client.system.ask(ref, { type: 'Close' }, { timeoutMs: 30_000 });
    this.ref = null;
    await this.client.system.stopActor(ref);
    if (this.listenerRef) await this.client.system.stopActor(this.listenerRef);
  }

  private requireRef(): ActorRef<ConsumerMsg> {
    if (!this.ref) throw new SamsaError(ErrorCode.NETWORK_EXCEPTION, 'the consumer is not connected: call connect() first');
    return this.ref;
  }
}
