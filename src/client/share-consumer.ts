/**
 * The share consumer's promise API (KIP-932, Kafka's KafkaShareConsumer): a thin layer over the
 * share consumer actor (actors/share-consumer). Records of a share group are handed to one member
 * at a time, each with its delivery count, and the application acknowledges them: implicitly
 * (share.acknowledgement.mode implicit, the default: the next poll or commit accepts everything
 * the last poll returned) or explicitly (acknowledge(record, type) for every record, before the
 * next poll). Acknowledgements go to the brokers with the next fetches, or at once with
 * commitSync / commitAsync; close sends those made and gives back every record still held.
 *
 * A record still being processed may be renewed (explicit mode, KIP-1222's AcknowledgeType.RENEW,
 * as Kafka 4.2's consumer): its acquisition lock is extended and, once the broker has answered,
 * a poll returns it again, to be acknowledged once more; while records are being renewed a poll
 * returns only those. An application that does not poll for max.poll.interval.ms is taken to
 * be stuck: the member leaves its group, and joins again at the next poll.
 */
import { nanoid } from 'nanoid';
import { randomUUID } from 'node:crypto';
import type {
  AcknowledgementOutcome,
  PartitionAcknowledgements,
  ShareCommitResult,
  ShareConsumedRecord,
  ShareConsumerDescription,
  ShareConsumerDone,
  ShareConsumerMetricsReply,
  ShareConsumerMsg,
  SharePollResult,
} from '../../actors/share-consumer/messages.js';
import { shareConsumer as shareConsumerActor } from '../../actors/share-consumer/share-consumer.js';
import { parseShareConsumerConfig, type ShareAcknowledgementMode } from '../../actors/share-consumer/share-consumer-config.js';
import { AcknowledgeType } from '../../actors/share-partition/share-partition-state.js';
import { ErrorCode } from '../protocol/errors.js';
import type { ActorRef, Failure, Message } from '../runtime/types.js';
import { isFailure } from '../runtime/types.js';
import { IllegalStateError, SamsaError } from './errors.js';
import { awaitClientInstanceId } from './client-instance-id.js';
import type { ClientInstanceIdReply } from './telemetry-loop.js';
import type { ClientMetric } from './metrics.js';
import { DeliveredRecords } from './share-delivered.js';
import type { SamsaClient } from './samsa.js';

export { AcknowledgeType };
export type { ShareConsumerDescription };

export { IllegalStateError };

/** A record of a share group, acquired for this consumer. */
export interface ShareRecord {
  topic: string;
  partition: number;
  offset: number;
  timestamp: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: Record<string, Buffer | null | (Buffer | null)[]>;
  /** How many times it has been delivered, this time included (1 the first time). */
  deliveryCount: number;
}

/**
 * Accept (processed), Release (deliver again, maybe to another member), Reject (never again) or
 * Renew (still being processed: the lock is extended, and a later poll returns the record again).
 */
export type ShareAcknowledgeType =
  | 'accept'
  | 'release'
  | 'reject'
  | 'renew'
  | AcknowledgeType.Accept
  | AcknowledgeType.Release
  | AcknowledgeType.Reject
  | AcknowledgeType.Renew;

/** How one partition's acknowledgements went: `error` null when the broker applied them. */
export interface ShareAcknowledgementResult {
  topic: string;
  /** The topic's id (Kafka's form), as the broker was sent it. */
  topicId: string;
  partition: number;
  offsets: number[];
  error: SamsaError | null;
}

/** Called with the outcome of each partition's acknowledgements (Kafka's AcknowledgementCommitCallback). */
export type AcknowledgementCommitCallback = (result: ShareAcknowledgementResult) => void;

/** A record as acknowledge() takes it: any object naming the topic, partition and offset of a record the last poll returned. */
export type ShareRecordRef = Pick<ShareRecord, 'topic' | 'partition' | 'offset'>;

/** A Buffer over the same bytes. */
function asBuffer(b: Uint8Array | null): Buffer | null {
  return b === null ? null : Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

/**
 * The record as the application's. A poll's records are this consumer's alone once its actor
 * handed them over, so each becomes the application's record in place (its header list turned
 * into a header object): one object per record instead of two.
 */
function toShareRecord(r: ShareConsumedRecord): ShareRecord {
  const list = r.headers;
  if (!Array.isArray(list)) return r as unknown as ShareRecord; // already the application's
  const headers: ShareRecord['headers'] = {};
  for (let i = 0; i < list.length; i++) {
    const h = list[i]!;
    const v = asBuffer(h.value);
    const prev = headers[h.key];
    if (prev === undefined) headers[h.key] = v;
    else headers[h.key] = Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  const m = r as unknown as ShareRecord;
  m.key = asBuffer(r.key);
  m.value = asBuffer(r.value);
  m.headers = headers;
  return m;
}

function ackTypeOf(type: ShareAcknowledgeType): number {
  if (typeof type === 'string') {
    switch (type.toLowerCase()) {
      case 'accept':
        return AcknowledgeType.Accept;
      case 'release':
        return AcknowledgeType.Release;
      case 'reject':
        return AcknowledgeType.Reject;
      case 'renew':
        return AcknowledgeType.Renew;
    }
  } else if (type === AcknowledgeType.Accept || type === AcknowledgeType.Release || type === AcknowledgeType.Reject || type === AcknowledgeType.Renew) {
    return type;
  }
  // Gap (0) is the consumer's own, for offsets without a record
  throw new TypeError(`acknowledge type must be accept, release, reject or renew (AcknowledgeType.Accept, Release, Reject or Renew), got ${JSON.stringify(type)}`);
}

function checkRecordRef(record: unknown): asserts record is ShareRecordRef {
  const r = record as Partial<ShareRecordRef> | null;
  if (
    typeof r !== 'object' ||
    r === null ||
    typeof r.topic !== 'string' ||
    !Number.isSafeInteger(r.partition) ||
    (r.partition as number) < 0 ||
    !Number.isSafeInteger(r.offset) ||
    (r.offset as number) < 0
  ) {
    throw new TypeError('acknowledge takes a record a poll returned (an object with its topic, partition and offset)');
  }
}

const tpKey = (topic: string, partition: number) => `${topic}\u0000${partition}`;

export class ShareConsumer {
  /** The member id this consumer has in its share group (a uuid it made, as KIP-1082's members do). */
  readonly memberId: string;
  readonly groupId: string;
  readonly acknowledgementMode: ShareAcknowledgementMode;
  private ref: ActorRef<ShareConsumerMsg> | null = null;
  private readonly maxPollRecords: number;
  private readonly apiTimeoutMs: number;
  private topics: string[] = [];
  /** The records the last poll returned, with the application's acknowledgements of them. */
  private delivered = new DeliveredRecords<ShareRecord>();
  /** Records whose Renew acknowledgement is out, by partition and offset. */
  private renewing = new Map<string, Map<number, ShareRecord>>();
  /** Records renewed: the next poll returns them again. */
  private renewed: ShareRecord[] = [];
  private callback: AcknowledgementCommitCallback | null = null;
  private lockTimeoutMs: number | null = null;
  private closed = false;
  private polling = false;

  constructor(
    private readonly client: SamsaClient,
    private readonly config: Record<string, unknown>,
  ) {
    // bad keys and values are the caller's error now, by name (ShareConsumerConfigError)
    const parsed = parseShareConsumerConfig(this.actorConfig());
    this.groupId = parsed.groupId;
    this.acknowledgementMode = parsed.acknowledgementMode;
    this.maxPollRecords = parsed.maxPollRecords;
    this.apiTimeoutMs = parsed.defaultApiTimeoutMs;
    this.memberId = randomUUID();
  }

  /** The actor's config: the client's id unless the caller set one. */
  private actorConfig(): Record<string, unknown> {
    return { 'client.id': this.client.clientId, ...this.config };
  }

  /** Starts the consumer's actor (subscribe does it when needed). */
  async connect(): Promise<void> {
    this.ensureOpen();
    this.actor();
  }

  private actor(): ActorRef<ShareConsumerMsg> {
    this.ref ??= this.client.system.spawn(shareConsumerActor, {
      name: `share-consumer-${nanoid(8)}`,
      args: { bootstrap: this.client.brokers, config: this.actorConfig(), memberId: this.memberId },
    });
    return this.ref;
  }

  private ensureOpen(): void {
    if (this.closed) throw new IllegalStateError('This consumer has already been closed.');
  }

  /** The topics subscribed to (the last subscribe's). */
  subscription(): string[] {
    return [...this.topics];
  }

  /**
   * Subscribes to `topics`, replacing the subscription; the consumer joins its share group (an
   * empty list unsubscribes, as Kafka's).
   */
  async subscribe(topics: string[]): Promise<void> {
    this.ensureOpen();
    if (!Array.isArray(topics)) throw new TypeError('subscribe takes an array of topic names');
    if (topics.some((t) => typeof t !== 'string' || t.trim() === '')) throw new TypeError('Topic collection to subscribe to cannot contain null or empty topic');
    if (topics.length === 0) return this.unsubscribe();
    const r = await this.client.system.ask<ShareConsumerDone>(this.actor(), { type: 'Subscribe', topics: [...topics] }, { timeoutMs: 10_000 });
    this.check(r);
    this.topics = [...new Set(topics)];
  }

  /**
   * Leaves the share group: the acknowledgements made are sent, the records still held (the last
   * poll's not acknowledged included) go back to the group.
   */
  async unsubscribe(): Promise<void> {
    this.ensureOpen();
    const acknowledgements = this.takeAcknowledgements(false);
    this.delivered.clear();
    this.dropRenewals();
    this.topics = [];
    if (!this.ref) return;
    const r = await this.client.system.ask<ShareConsumerDone>(this.ref, { type: 'Unsubscribe', acknowledgements }, { timeoutMs: 60_000 });
    this.check(r);
  }

  /**
   * The next records acquired for this consumer, waiting up to `timeoutMs` for some (an empty
   * array when none came). In implicit mode the records the last poll returned are accepted
   * first; in explicit mode every one of them must have been acknowledged (IllegalStateError).
   * With records being renewed, it returns only those the brokers renewed (once they answered,
   * within `timeoutMs`), as Kafka's: each to be acknowledged again.
   */
  async poll(timeoutMs = 1_000): Promise<ShareRecord[]> {
    this.ensureOpen();
    if (!Number.isFinite(timeoutMs) || timeoutMs < 0) throw new RangeError(`poll timeout must be a non-negative number of milliseconds, got ${timeoutMs}`);
    if (this.topics.length === 0) throw new IllegalStateError('Consumer is not subscribed to any topics.');
    if (this.polling) throw new IllegalStateError('a poll is already in progress');
    const implicit = this.acknowledgementMode === 'implicit';
    const acknowledgements = this.takeAcknowledgements(implicit);
    if (!implicit && this.delivered.size > 0) {
      // the acknowledgements made go now; the records not acknowledged may still be
      if (acknowledgements.length > 0) this.sendAsync(acknowledgements);
      throw new IllegalStateError('All records must be acknowledged in explicit acknowledgement mode.');
    }
    // records being renewed: this poll hands out only those renewed (no new ones), as Kafka's
    const renewals = this.renewing.size > 0 || this.renewed.length > 0;
    // renewed already: no need to wait
    const waitMs = renewals && this.renewed.length > 0 ? 0 : Math.floor(timeoutMs);
    this.polling = true;
    let r: SharePollResult | Failure;
    try {
      r = await this.client.system.ask<SharePollResult>(this.actor(), { type: 'Poll', maxRecords: this.maxPollRecords, timeoutMs: waitMs, acknowledgements, renewals }, { timeoutMs: waitMs + 30_000 });
    } catch (err) {
      // the renewals' outcomes may be lost with the answer: their delivery is over as far as this consumer knows
      this.renewing.clear();
      throw err;
    } finally {
      this.polling = false;
    }
    if (isFailure(r)) {
      this.renewing.clear();
      throw new SamsaError(r.errorCode, r.message);
    }
    const p = r;
    this.deliverCompleted(p.completed);
    if (p.acquisitionLockTimeoutMs !== null) this.lockTimeoutMs = p.acquisitionLockTimeoutMs;
    if (p.errorCode !== ErrorCode.NONE) throw new SamsaError(p.errorCode, p.errorMessage);
    const records = renewals ? this.takeRenewed() : p.records.map(toShareRecord);
    // the answer may sit in the old generation by now (the wait spanned collections): left
    // pointing at the records, it would keep them alive through every young collection until
    // the next full one, as the classic consumer's releasePoll explains
    p.records.length = 0;
    this.delivered.add(records);
    return records;
  }

  /** The records renewed, in the order of their partitions and offsets, taken out. */
  private takeRenewed(): ShareRecord[] {
    const out = this.renewed.sort((a, b) => (a.topic === b.topic ? a.partition - b.partition || a.offset - b.offset : a.topic < b.topic ? -1 : 1));
    this.renewed = [];
    return out;
  }

  private dropRenewals(): void {
    this.renewing.clear();
    this.renewed = [];
  }

  /**
   * Acknowledges a record the last poll returned (explicit mode only): accept (the default),
   * release (to be delivered again), reject, or renew (still being processed: its lock is
   * extended and a later poll returns it again, to be acknowledged then). Sent with the next
   * poll, commitSync or commitAsync.
   */
  acknowledge(record: ShareRecordRef, type: ShareAcknowledgeType = 'accept'): void {
    this.ensureOpen();
    checkRecordRef(record);
    const t = ackTypeOf(type);
    if (this.acknowledgementMode !== 'explicit') throw new IllegalStateError('Implicit acknowledgement of delivery is being used.');
    if (!this.delivered.acknowledge(record, t)) {
      const k = tpKey(record.topic, record.partition);
      const where = `${record.topic}-${record.partition}@${record.offset}`;
      if (this.renewing.get(k)?.has(record.offset) || this.renewed.some((r) => r.topic === record.topic && r.partition === record.partition && r.offset === record.offset)) {
        throw new IllegalStateError(`The record cannot be acknowledged: ${where} is being renewed; a poll returns it again once renewed.`);
      }
      throw new IllegalStateError(`The record cannot be acknowledged: ${where} is not waiting for an acknowledgement.`);
    }
  }

  /**
   * Sends the acknowledgements (implicit mode: every record of the last poll accepted) and waits
   * for the brokers: each partition's outcome, `error` null when applied. Records renewed come
   * again with the next poll.
   */
  async commitSync(timeoutMs = this.apiTimeoutMs): Promise<ShareAcknowledgementResult[]> {
    this.ensureOpen();
    if (!Number.isFinite(timeoutMs) || timeoutMs < 0) throw new RangeError(`commitSync timeout must be a non-negative number of milliseconds, got ${timeoutMs}`);
    const acknowledgements = this.takeAcknowledgements(this.acknowledgementMode === 'implicit');
    if (acknowledgements.length === 0 || !this.ref) return [];
    let r: ShareCommitResult | Failure;
    try {
      r = await this.client.system.ask<ShareCommitResult>(this.ref, { type: 'Commit', acknowledgements, wait: true, timeoutMs: Math.floor(timeoutMs) }, { timeoutMs: Math.floor(timeoutMs) + 5_000 });
    } catch (err) {
      this.forgetRenewals(acknowledgements);
      throw err;
    }
    if (isFailure(r)) {
      this.forgetRenewals(acknowledgements);
      throw new SamsaError(r.errorCode, r.message);
    }
    this.deliverCompleted(r.completed);
    if (r.errorCode !== ErrorCode.NONE) {
      this.forgetRenewals(acknowledgements);
      throw new SamsaError(r.errorCode, r.errorMessage);
    }
    this.onOutcomes(r.results);
    const results = r.results.map(toResult);
    for (const res of results) this.callback?.(res);
    return results;
  }

  /** Sends the acknowledgements (as commitSync) without waiting: their outcomes go to the acknowledgement commit callback. */
  commitAsync(): void {
    this.ensureOpen();
    const acknowledgements = this.takeAcknowledgements(this.acknowledgementMode === 'implicit');
    if (acknowledgements.length > 0) this.sendAsync(acknowledgements);
  }

  /** The callback told how each partition's acknowledgements went (called from poll, commits and close, or as answers come). */
  setAcknowledgementCommitCallback(callback: AcknowledgementCommitCallback | null): void {
    this.callback = callback;
  }

  /** The acquisition lock timeout the brokers last answered (ms), null before any fetch. */
  acquisitionLockTimeoutMs(): number | null {
    return this.lockTimeoutMs;
  }

  /** A poll waiting for records returns at once (with none). */
  wakeup(): void {
    if (this.ref) this.client.system.send(this.ref, { type: 'Wakeup' });
  }

  /**
   * The id a broker gave this client instance for its metrics push (KIP-714, Kafka's
   * clientInstanceId(Duration)), waiting up to timeoutMs for it: null when none came in time or telemetry
   * stopped without one, as Kafka's. Throws RangeError for a negative timeout and
   * IllegalStateError with enable.metrics.push false. The client actor answers as soon as a broker gives it (client-instance-id.ts).
   */
  clientInstanceId(timeoutMs: number): Promise<string | null> {
    return awaitClientInstanceId(timeoutMs, (msg, askTimeoutMs) => {
      this.ensureOpen();
      return this.client.system.ask<ClientInstanceIdReply>(this.actor(), msg, { timeoutMs: askTimeoutMs });
    });
  }

  /** The member as the consumer sees it: phase, epoch, subscription, assignment, brokers fetched from, telemetry. */
  async describe(): Promise<ShareConsumerDescription> {
    this.ensureOpen();
    const r = await this.client.system.ask<ShareConsumerDescription>(this.actor(), { type: 'DescribeShareConsumer' }, { timeoutMs: 10_000 });
    if (isFailure(r)) throw new SamsaError(r.errorCode, r.message);
    return r;
  }

  /**
   * The share consumer's metrics, as Kafka's KafkaShareConsumer.metrics() gives them (each with
   * its group, name, description, client-id tag and value): consumer-share-fetch-manager-metrics
   * (fetch-latency-avg/-max, fetch-rate/-total, fetch-size-avg/-max, records-per-request-avg/-max,
   * records-consumed-rate/-total, bytes-consumed-rate/-total, acknowledgements-send-rate/-total,
   * acknowledgements-error-rate/-total), consumer-share-coordinator-metrics (heartbeat-rate/-total,
   * heartbeat-response-time-max, last-heartbeat-seconds-ago, rebalance-total,
   * rebalance-rate-per-hour) and consumer-share-metrics (last-poll-seconds-ago,
   * time-between-poll-avg/-max, poll-idle-ratio-avg); averages, maxima and rates over the last
   * metrics.num.samples x metrics.sample.window.ms, totals over the consumer's life, NaN where
   * nothing was recorded yet.
   */
  async metrics(): Promise<ClientMetric[]> {
    this.ensureOpen();
    const r = await this.client.system.ask<ShareConsumerMetricsReply>(this.actor(), { type: 'Metrics' }, { timeoutMs: 10_000 });
    if (isFailure(r)) throw new SamsaError(r.errorCode, r.message);
    return r.metrics;
  }

  /**
   * Sends the acknowledgements made (explicit mode; in implicit mode the last poll's records are
   * not accepted, as Kafka's), gives back every record still held and leaves the group.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    const acknowledgements = this.acknowledgementMode === 'explicit' ? this.takeAcknowledgements(false) : [];
    this.closed = true;
    this.delivered.clear();
    this.dropRenewals();
    const ref = this.ref;
    if (!ref) return;
    try {
      const r = await this.client.system.ask<ShareConsumerDone>(ref, { type: 'Close', acknowledgements }, { timeoutMs: 60_000 });
      if (!isFailure(r)) this.deliverCompleted(r.completed);
      this.check(r);
    } finally {
      this.ref = null;
      await this.client.system.stopActor(ref);
    }
  }

  /**
   * The acknowledgements to send, taken out of the last poll's records: those acknowledged, and
   * with `acceptRest` every other one as accepted (implicit mode). Records renewed wait for
   * their outcome.
   */
  private takeAcknowledgements(acceptRest: boolean): PartitionAcknowledgements[] {
    return this.delivered.take(acceptRest, (record) => {
      const k = tpKey(record.topic, record.partition);
      let m = this.renewing.get(k);
      if (!m) this.renewing.set(k, (m = new Map()));
      m.set(record.offset, record);
    });
  }

  private sendAsync(acknowledgements: PartitionAcknowledgements[]): void {
    const ref = this.actor();
    void this.client.system
      .ask<ShareCommitResult>(ref, { type: 'Commit', acknowledgements, wait: false, timeoutMs: this.apiTimeoutMs }, { timeoutMs: 10_000 })
      .then((r) => {
        if (!isFailure(r)) this.deliverCompleted(r.completed);
        else this.forgetRenewals(acknowledgements);
      })
      .catch(() => this.forgetRenewals(acknowledgements));
  }

  private deliverCompleted(completed: AcknowledgementOutcome[]): void {
    this.onOutcomes(completed);
    if (!this.callback) return;
    for (const o of completed) this.callback(toResult(o));
  }

  /** Renewals answered: the records renewed come with the next poll; those not renewed are no longer this consumer's. */
  private onOutcomes(outcomes: readonly AcknowledgementOutcome[]): void {
    if (this.renewing.size === 0) return;
    for (const o of outcomes) {
      const k = tpKey(o.topic, o.partition);
      const m = this.renewing.get(k);
      if (!m) continue;
      for (const offset of o.offsets) {
        const record = m.get(offset);
        if (!record) continue;
        m.delete(offset);
        if (o.errorCode === ErrorCode.NONE) this.renewed.push(record);
      }
      if (m.size === 0) this.renewing.delete(k);
    }
  }

  /** Renewals sent in a call that failed: their outcome is unknown, so the records are given up. */
  private forgetRenewals(acknowledgements: readonly PartitionAcknowledgements[]): void {
    for (const a of acknowledgements) {
      const k = tpKey(a.topic, a.partition);
      const m = this.renewing.get(k);
      if (!m) continue;
      for (const offset of a.offsets) m.delete(offset);
      if (m.size === 0) this.renewing.delete(k);
    }
  }

  private check(r: Message & { errorCode?: number; errorMessage?: string }): void {
    if (isFailure(r)) throw new SamsaError(r.errorCode, r.message);
    if (r.errorCode !== undefined && r.errorCode !== ErrorCode.NONE) throw new SamsaError(r.errorCode, r.errorMessage);
  }
}

function toResult(o: AcknowledgementOutcome): ShareAcknowledgementResult {
  return { topic: o.topic, topicId: o.topicId, partition: o.partition, offsets: o.offsets, error: o.errorCode === ErrorCode.NONE ? null : new SamsaError(o.errorCode, o.errorMessage ?? undefined) };
}
