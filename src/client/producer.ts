/**
 * The producer's promise API: a thin layer over the producer actor (actors/producer). Options
 * use Kafka's names (acks, batch.size, linger.ms, buffer.memory, compression.type, ...).
 *
 *   const producer = samsa.producer({ acks: 'all', 'linger.ms': 5 });
 *   await producer.connect();
 *   await producer.send({ topic: 'orders', messages: [{ key: 'k', value: 'v' }] });
 *
 * With `transactionalId` (Kafka's transactional.id) the producer writes in transactions only
 * (see transaction.ts): `const txn = await producer.transaction()`, then txn.send / sendOffsets /
 * commit / abort; producer.send outside a transaction is refused.
 */
import { nanoid } from 'nanoid';
import type { ProducerMetricsReply, ProducerMsg, ProducerRecord, RecordMetadata, SendResult, TopicRecords, TxnOffsets, TxnResult } from '../../actors/producer/messages.js';
import type { ClientMetric } from './metrics.js';
import { producer as producerActor } from '../../actors/producer/producer.js';
import { parseProducerConfig } from '../../actors/producer/producer-config.js';
import { ErrorCode } from '../protocol/errors.js';
import type { ActorRef, Failure } from '../runtime/types.js';
import { isFailure } from '../runtime/types.js';
import { awaitClientInstanceId } from './client-instance-id.js';
import { SamsaError } from './errors.js';
import type { ClientInstanceIdReply } from './telemetry-loop.js';
import { toBytesOrNull, toHeaderList, type Message } from './records.js';
import type { SamsaClient } from './samsa.js';
import { Transaction } from './transaction.js';

export interface ProducerRecordBatch {
  topic: string;
  messages: Message[];
}

function toRecord(m: Message): ProducerRecord {
  const r: ProducerRecord = { value: toBytesOrNull(m.value), key: toBytesOrNull(m.key) };
  const headers = toHeaderList(m.headers);
  if (headers) r.headers = headers;
  if (m.partition !== undefined) r.partition = m.partition;
  if (m.timestamp !== undefined) r.timestamp = Number(m.timestamp);
  return r;
}

/** A message that already is what the producer actor takes (bytes or null, no header object). */
function isRecordShaped(m: Message): boolean {
  return (
    (m.value === null || m.value instanceof Uint8Array) &&
    (m.key === undefined || m.key === null || m.key instanceof Uint8Array) &&
    m.headers === undefined &&
    (m.timestamp === undefined || typeof m.timestamp === 'number')
  );
}

/**
 * The records of a send. Messages that already hold bytes are passed on as they are (no
 * per-record copy): the producer reads them when it admits the send, so they must not be changed
 * until send() settles (as with their bytes, always). Others are converted one by one.
 */
function sendResults(r: SendResult | Failure): RecordMetadata[] {
  if (isFailure(r)) throw new SamsaError(r.errorCode, r.message);
  if (r.errorCode !== ErrorCode.NONE) throw new SamsaError(r.errorCode, r.errorMessage);
  return r.results;
}

function toRecords(messages: Message[]): ProducerRecord[] {
  for (let i = 0; i < messages.length; i++) if (!isRecordShaped(messages[i]!)) return messages.map(toRecord);
  return messages as ProducerRecord[];
}

/** KafkaJS's names for the transactional settings, taken as well as Kafka's. */
const KAFKAJS_KEYS: Readonly<Record<string, string>> = { transactionalId: 'transactional.id', transactionTimeout: 'transaction.timeout.ms' };

function normalizeConfig(config: Record<string, unknown>): Record<string, unknown> {
  if (!Object.keys(config).some((k) => k in KAFKAJS_KEYS)) return config;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(config)) out[KAFKAJS_KEYS[k] ?? k] = v;
  return out;
}

function txnResult(r: TxnResult | Failure): void {
  if (isFailure(r)) throw new SamsaError(r.errorCode, r.message);
  if (r.errorCode !== ErrorCode.NONE) throw new SamsaError(r.errorCode, r.errorMessage);
}

export class Producer {
  private ref: ActorRef<ProducerMsg> | null = null;
  private readonly askTimeoutMs: number;
  private readonly config: Record<string, unknown>;
  private readonly transactional: boolean;

  constructor(
    private readonly client: SamsaClient,
    config: Record<string, unknown> = {},
  ) {
    this.config = normalizeConfig(config);
    const c = parseProducerConfig(this.config);
    this.transactional = c.transactionalId !== null;
    // a commit flushes (delivery.timeout.ms) and then asks the coordinator (max.block.ms)
    this.askTimeoutMs = c.deliveryTimeoutMs + c.maxBlockMs + 10_000;
  }

  /** Whether the producer was made with a transactionalId. */
  isTransactional(): boolean {
    return this.transactional;
  }

  /**
   * Begins a transaction (the first one also initialises the transactional id with its
   * coordinator, fencing older producers with the same id). One at a time per producer.
   */
  async transaction(): Promise<Transaction> {
    const ref = this.requireConnected();
    if (!this.transactional) throw new SamsaError(ErrorCode.INVALID_TXN_STATE, 'transaction() needs a producer made with a transactionalId');
    txnResult(await this.client.system.ask<TxnResult>(ref, { type: 'BeginTxn' }, { timeoutMs: this.askTimeoutMs }));
    return new Transaction({
      sendBatch: (req) => this.sendBatch(req),
      sendOffsets: async (groupId, topics: TxnOffsets[], member) =>
        txnResult(await this.client.system.ask<TxnResult>(ref, member ? { type: 'SendOffsetsToTxn', groupId, topics, member } : { type: 'SendOffsetsToTxn', groupId, topics }, { timeoutMs: this.askTimeoutMs })),
      end: async (commit) => txnResult(await this.client.system.ask<TxnResult>(ref, { type: 'EndTxn', commit }, { timeoutMs: this.askTimeoutMs })),
    });
  }

  get actor(): ActorRef<ProducerMsg> | null {
    return this.ref;
  }

  async connect(): Promise<void> {
    if (this.ref) return;
    this.ref = this.client.system.spawn(producerActor, {
      name: `producer-${nanoid(8)}`,
      args: { bootstrap: this.client.brokers, config: { 'client.id': this.client.clientId, ...this.config } },
    });
  }

  /** Sends records to one topic; resolves with the partition and base offset of each partition's records. */
  send(batch: ProducerRecordBatch): Promise<RecordMetadata[]> {
    return this.sendBatch({ topicMessages: [batch] });
  }

  sendBatch(req: { topicMessages: ProducerRecordBatch[] }): Promise<RecordMetadata[]> {
    let ref: ActorRef<ProducerMsg>;
    let topics: TopicRecords[];
    try {
      ref = this.requireConnected();
      topics = req.topicMessages.map((t) => ({ topic: t.topic, messages: toRecords(t.messages) }));
    } catch (err) {
      return Promise.reject(err);
    }
    // not an async function: its frame would keep the records (already copied into batches by
    // the producer actor) alive until the acknowledgement, promoting them out of the young
    // generation under load
    return this.client.system.ask<SendResult>(ref, { type: 'Send', topics }, { timeoutMs: this.askTimeoutMs }).then(sendResults);
  }

  /** Resolves when everything sent so far is acknowledged (or failed). */
  async flush(): Promise<void> {
    const r = await this.client.system.ask(this.requireConnected(), { type: 'Flush' }, { timeoutMs: this.askTimeoutMs });
    if (isFailure(r)) throw new SamsaError(r.errorCode, r.message);
  }

  /** Flushes, then stops the producer actor. */
  async disconnect(): Promise<void> {
    if (!this.ref) return;
    const ref = this.ref;
    this.ref = null;
    await this.client.system.ask(ref, { type: 'Close' }, { timeoutMs: this.askTimeoutMs });
    await this.client.system.stopActor(ref);
  }

  /**
   * The producer's metrics, as Kafka's producer.metrics() gives them (the producer-metrics
   * group: batch-size-avg, record-send-rate, request-latency-avg, record-queue-time-max, ...):
   * averages, maxima and rates over the last metrics.num.samples x metrics.sample.window.ms,
   * totals over the producer's life, NaN where nothing was recorded yet.
   */
  async metrics(): Promise<ClientMetric[]> {
    const r = await this.client.system.ask<ProducerMetricsReply>(this.requireConnected(), { type: 'Metrics' }, { timeoutMs: this.askTimeoutMs });
    if (isFailure(r)) throw new SamsaError(r.errorCode, r.message);
    return r.metrics;
  }

  /**
   * The id a broker gave this client instance for its metrics push (KIP-714, Kafka's
   * clientInstanceId(Duration)), waiting up to timeoutMs for it: null when none came in time or telemetry
   * stopped without one, as Kafka's. Throws RangeError for a negative timeout and
   * IllegalStateError with enable.metrics.push false. The client actor answers as soon as a broker gives it (client-instance-id.ts).
   */
  clientInstanceId(timeoutMs: number): Promise<string | null> {
    return awaitClientInstanceId(timeoutMs, (msg, askTimeoutMs) => this.client.system.ask<ClientInstanceIdReply>(this.requireConnected(), msg, { timeoutMs: askTimeoutMs }));
  }

  private requireConnected(): ActorRef<ProducerMsg> {
    if (!this.ref) throw new SamsaError(ErrorCode.NETWORK_EXCEPTION, 'the producer is not connected: call connect() first');
    return this.ref;
  }
}
