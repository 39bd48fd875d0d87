/**
 * A broker's side of KIP-714's client metrics, as Kafka's ClientMetricsManager: the client
 * instances that asked for their subscriptions (GetTelemetrySubscriptions) and push metrics
 * (PushTelemetry), each with the subscriptions it matches, and the pushes handed to the broker's
 * telemetry receiver, an actor (client.telemetry.receiver) that takes ClientTelemetryPush.
 *
 * A client without an instance id gets a new one. Its subscription is the union of the metrics
 * of the subscriptions it matches (`*` alone if any has it), pushed at the shortest of their
 * intervals (300,000 ms when it matches none); the subscription id is a CRC32C of those metrics
 * and interval mixed with the instance id, so every broker gives a client the same one and a
 * push may go to any broker. When the cluster's subscriptions change, each instance is worked out
 * again on its next request (and may then ask again at once). As Kafka's:
 *  - asking again before the push interval has passed since its last request is
 *    THROTTLING_QUOTA_EXCEEDED (unless its last push was refused for its subscription id or its
 *    compression);
 *  - a push is refused INVALID_REQUEST without an instance id or after a terminating push,
 *    THROTTLING_QUOTA_EXCEEDED before the interval (the first after a GetTelemetrySubscriptions
 *    and a terminating one excepted), UNKNOWN_SUBSCRIPTION_ID with another subscription id,
 *    UNSUPPORTED_COMPRESSION_TYPE for a codec Kafka does not define, TELEMETRY_TOO_LARGE over
 *    telemetry.max.bytes; a payload that does not decompress, or that the receiver refuses, is
 *    INVALID_RECORD.
 * Instances are forgotten max(60 s, 3 intervals) after their last request, and past 16,384 the
 * least recently seen goes first.
 */
import { randomBytes } from 'node:crypto';
import { decompressAsync, isCodecSupported } from '../protocol/compression.js';
import { crc32c } from '../protocol/crc32c.js';
import { ErrorCode } from '../protocol/errors.js';
import type { Clock } from '../runtime/clock.js';
import type { ActorRef, Message } from '../runtime/types.js';
import type { GetTelemetrySubscriptionsResponse } from './protocol/index.js';
import { ALL_METRICS, DEFAULT_INTERVAL_MS, matchesClient, subscriptionsOf, type ClientMetricsSubscription, type MatchSelector } from './client-metrics.js';

/** Kafka's Uuid.ZERO_UUID and Uuid.ONE_UUID (METADATA_TOPIC_ID), the reserved ids, in Kafka's form. */
const RESERVED_IDS = new Set(['AAAAAAAAAAAAAAAAAAAAAA', 'AAAAAAAAAAAAAAAAAAAAAQ']);
/** What a client may compress its pushes with, in Kafka's order: zstd, lz4, gzip, snappy. */
export const ACCEPTED_COMPRESSION_TYPES: readonly number[] = [4, 3, 1, 2];
/** Kafka's CompressionType ids: none, gzip, snappy, lz4, zstd. */
const KAFKA_CODECS = new Set([0, 1, 2, 3, 4]);
const CACHE_MAX = 16_384;
const CACHE_EXPIRY_MS = 60_000;
/** OTLP's MetricsData v1 in protobuf, what KIP-714's clients push. */
export const TELEMETRY_CONTENT_TYPE = 'application/x-protobuf';

/** What a telemetry receiver gets for every push that carries metrics; it answers each (any reply; a non-zero errorCode refuses it). */
export interface ClientTelemetryPush {
  type: 'ClientTelemetryPush';
  brokerId: number;
  clientInstanceId: string;
  clientId: string | null;
  clientSoftwareName: string | null;
  clientSoftwareVersion: string | null;
  clientSourceAddress: string;
  clientSourcePort: number | null;
  /** Who pushed (the connection's principal). */
  principal: string;
  subscriptionId: number;
  /** The client's last push, as it closes. */
  terminating: boolean;
  contentType: string;
  /** The metrics as the client encoded them (OTLP MetricsData v1), decompressed. */
  metrics: Uint8Array;
}

/** Who asks, as the broker knows the client: the attributes a subscription's `match` reads. */
export interface TelemetryClient {
  clientId: string | null;
  softwareName: string | null;
  softwareVersion: string | null;
  sourceAddress: string;
  sourcePort: number | null;
  principal: string;
}

interface Instance {
  readonly id: string;
  readonly client: TelemetryClient;
  /** The subscriptions' fingerprint this instance was worked out with. */
  readonly version: string;
  readonly subscriptionId: number;
  readonly metrics: string[];
  readonly pushIntervalMs: number;
  lastGetMs: number;
  lastPushMs: number;
  terminating: boolean;
  lastError: number;
  expiresAt: number;
}

/** GetTelemetrySubscriptions' answer, as Kafka's schema has it. */
export type GetSubscriptionsAnswer = GetTelemetrySubscriptionsResponse;

export interface ClientTelemetryOptions {
  brokerId: number;
  receiver: ActorRef<Message>;
  maxBytes: number;
  clock: Clock;
  /** New client instance ids (default: 16 random bytes, as Kafka's Uuid.randomUuid). */
  newInstanceId?: () => string;
}

/** Asks the receiver (the Kafka request's ask, so the receiver's work counts as the request's); resolves to its reply or a failure. */
type Ask = (to: ActorRef<Message>, msg: Message, timeoutMs: number) => Promise<unknown>;

export class ClientTelemetry {
  private readonly instances = new Map<string, Instance>();
  /** The subscriptions last read, by their fingerprint: their patterns compiled once, not per instance. */
  private parsed: { version: string; subscriptions: ClientMetricsSubscription[] } = { version: '{}', subscriptions: [] };
  private readonly newInstanceId: () => string;

  constructor(private readonly opts: ClientTelemetryOptions) {
    this.newInstanceId = opts.newInstanceId ?? (() => randomBytes(16).toString('base64url'));
  }

  /** How many client instances are known (for tests and metrics). */
  get size(): number {
    return this.instances.size;
  }

  /** GetTelemetrySubscriptions: the client's subscription (a new instance id if it had none). */
  getSubscriptions(askedId: string, client: TelemetryClient, subscriptions: Readonly<Record<string, Readonly<Record<string, string>>>> | undefined): GetSubscriptionsAnswer {
    const now = this.opts.clock.now();
    this.expire(now);
    let id = askedId;
    if (RESERVED_IDS.has(id)) {
      do id = this.newInstanceId();
      while (RESERVED_IDS.has(id) || this.instances.has(id));
    }
    const instance = this.instance(id, client, subscriptions, now);
    const sinceLast = now - Math.max(instance.lastGetMs, instance.lastPushMs);
    const mayAskAgain = instance.lastError === ErrorCode.UNKNOWN_SUBSCRIPTION_ID || instance.lastError === ErrorCode.UNSUPPORTED_COMPRESSION_TYPE;
    if (sinceLast < instance.pushIntervalMs && !mayAskAgain) return refusedSubscriptions(ErrorCode.THROTTLING_QUOTA_EXCEEDED, id);
    instance.lastGetMs = now;
    instance.lastError = ErrorCode.NONE;
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      clientInstanceId: id,
      subscriptionId: instance.subscriptionId,
      acceptedCompressionTypes: [...ACCEPTED_COMPRESSION_TYPES],
      pushIntervalMs: instance.pushIntervalMs,
      telemetryMaxBytes: this.opts.maxBytes,
      deltaTemporality: true,
      // Kafka's wire form of "every metric" is one empty prefix
      requestedMetrics: instance.metrics.includes(ALL_METRICS) ? [''] : [...instance.metrics],
    };
  }

  /** PushTelemetry: checked, then (when it carries metrics) decompressed and handed to the receiver. */
  async push(
    req: { clientInstanceId: string; subscriptionId: number; terminating: boolean; compressionType: number; metrics: Uint8Array | null },
    client: TelemetryClient,
    subscriptions: Readonly<Record<string, Readonly<Record<string, string>>>> | undefined,
    ask: Ask,
    timeoutMs: number,
  ): Promise<{ errorCode: number; errorMessage: string | null }> {
    const id = req.clientInstanceId;
    if (RESERVED_IDS.has(id)) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Invalid request from the client [${id}], invalid client instance id` };
    const now = this.opts.clock.now();
    this.expire(now);
    const instance = this.instance(id, client, subscriptions, now);
    const refuse = (errorCode: number, errorMessage: string) => {
      instance.lastError = errorCode;
      return { errorCode, errorMessage };
    };
    const wasTerminating = instance.terminating;
    instance.terminating = req.terminating;
    if (wasTerminating) return refuse(ErrorCode.INVALID_REQUEST, `Client [${id}] sent the previous request with state terminating to TRUE, can not accept any requests after that`);
    // the first push after a GetTelemetrySubscriptions may come early: clients jitter the interval
    const mayPush = instance.lastGetMs > instance.lastPushMs || now - instance.lastPushMs >= instance.pushIntervalMs;
    if (mayPush) instance.lastPushMs = now;
    else if (!req.terminating) return refuse(ErrorCode.THROTTLING_QUOTA_EXCEEDED, `Request from the client [${id}] arrived before the next push interval time`);
    if (req.subscriptionId !== instance.subscriptionId) return refuse(ErrorCode.UNKNOWN_SUBSCRIPTION_ID, `Unknown client subscription id for the client [${id}]`);
    if (!KAFKA_CODECS.has(req.compressionType) || !isCodecSupported(req.compressionType)) {
      return refuse(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, `Unknown compression type [${req.compressionType}] is received in telemetry request from [${id}]`);
    }
    const payload = req.metrics ?? new Uint8Array(0);
    if (payload.length > this.opts.maxBytes) return refuse(ErrorCode.TELEMETRY_TOO_LARGE, `Telemetry request from [${id}] is larger than the maximum allowed size [${this.opts.maxBytes}]`);
    if (payload.length > 0) {
      let metrics: Uint8Array;
      try {
        // a payload may not grow past what any sane client sends: a compression bomb is refused
        metrics = req.compressionType === 0 ? payload : await decompressAsync(req.compressionType, payload, Math.max(this.opts.maxBytes * 64, 64 * 1024 * 1024));
      } catch (err) {
        return refuse(ErrorCode.INVALID_RECORD, `the metrics of [${id}] do not decompress: ${(err as Error).message}`);
      }
      const push: ClientTelemetryPush = {
        type: 'ClientTelemetryPush',
        brokerId: this.opts.brokerId,
        clientInstanceId: id,
        clientId: client.clientId,
        clientSoftwareName: client.softwareName,
        clientSoftwareVersion: client.softwareVersion,
        clientSourceAddress: client.sourceAddress,
        clientSourcePort: client.sourcePort,
        principal: client.principal,
        subscriptionId: req.subscriptionId,
        terminating: req.terminating,
        contentType: TELEMETRY_CONTENT_TYPE,
        metrics,
      };
      const reply = (await ask(this.opts.receiver, push, timeoutMs)) as { type?: string; errorCode?: number; message?: string; errorMessage?: string } | undefined;
      if (!reply || reply.type === 'Failure' || (typeof reply.errorCode === 'number' && reply.errorCode !== ErrorCode.NONE)) {
        const why = reply?.errorMessage ?? reply?.message ?? 'no answer';
        return refuse(ErrorCode.INVALID_RECORD, `the telemetry receiver did not take the metrics of [${id}]: ${why}`);
      }
    }
    instance.lastError = ErrorCode.NONE;
    return { errorCode: ErrorCode.NONE, errorMessage: null };
  }

  /** The instance of `id`, worked out again if the subscriptions changed since, or made. */
  private instance(id: string, client: TelemetryClient, subscriptions: Readonly<Record<string, Readonly<Record<string, string>>>> | undefined, now: number): Instance {
    const version = JSON.stringify(subscriptions ?? {});
    let instance = this.instances.get(id);
    if (!instance || instance.version !== version) {
      if (this.parsed.version !== version) this.parsed = { version, subscriptions: subscriptionsOf(subscriptions) };
      instance = this.made(id, instance?.client ?? client, this.parsed.subscriptions, version);
    }
    this.instances.delete(id);
    this.instances.set(id, instance);
    instance.expiresAt = now + Math.max(CACHE_EXPIRY_MS, instance.pushIntervalMs * 3);
    while (this.instances.size > CACHE_MAX) this.instances.delete(this.instances.keys().next().value!);
    return instance;
  }

  private made(id: string, client: TelemetryClient, subscriptions: readonly ClientMetricsSubscription[], version: string): Instance {
    const attributes: Record<MatchSelector, string | null> = {
      client_instance_id: id,
      client_id: client.clientId,
      client_software_name: client.softwareName,
      client_software_version: client.softwareVersion,
      client_source_address: client.sourceAddress,
      client_source_port: client.sourcePort === null ? null : String(client.sourcePort),
    };
    let pushIntervalMs = DEFAULT_INTERVAL_MS;
    const metrics = new Set<string>();
    for (const sub of subscriptions) {
      if (!matchesClient(sub.match, attributes)) continue;
      for (const m of sub.metrics) metrics.add(m);
      pushIntervalMs = Math.min(pushIntervalMs, sub.intervalMs);
    }
    const list = metrics.has(ALL_METRICS) ? [ALL_METRICS] : [...metrics].sort();
    return { id, client, version, subscriptionId: subscriptionIdOf(list, pushIntervalMs, id), metrics: list, pushIntervalMs, lastGetMs: -Infinity, lastPushMs: -Infinity, terminating: false, lastError: ErrorCode.NONE, expiresAt: 0 };
  }

  /** Forgets the instances not seen for their expiry, least recently seen first (stopping at the first still kept). */
  private expire(now: number): void {
    for (const [id, instance] of this.instances) {
      if (instance.expiresAt > now) break;
      this.instances.delete(id);
    }
  }
}

/** GetTelemetrySubscriptions refused with `errorCode`: no subscription. */
export function refusedSubscriptions(errorCode: number, clientInstanceId: string): GetSubscriptionsAnswer {
  return {
    throttleTimeMs: 0,
    errorCode,
    clientInstanceId,
    subscriptionId: 0,
    acceptedCompressionTypes: [],
    pushIntervalMs: 0,
    telemetryMaxBytes: 0,
    deltaTemporality: false,
    requestedMetrics: [],
  };
}

/** A broker's ClientTelemetry when it has a telemetry receiver (an actor path on its node, client.telemetry.receiver), else null. */
export function clientTelemetryFor(opts: { receiverPath: string; brokerId: number; nodeId: string; maxBytes: number; clock: Clock }): ClientTelemetry | null {
  if (opts.receiverPath === '') return null;
  return new ClientTelemetry({ brokerId: opts.brokerId, receiver: { node: opts.nodeId, path: opts.receiverPath }, maxBytes: opts.maxBytes, clock: opts.clock });
}

type Subscriptions = Readonly<Record<string, Readonly<Record<string, string>>>> | undefined;
type DebugLog = { debug(message: string, fields?: Record<string, unknown>): unknown };

/**
 * A broker's answer to GetTelemetrySubscriptions, from a Kafka-protocol client or one of
 * samsa's: without a telemetry receiver UNSUPPORTED_VERSION (Kafka offers the API only with a
 * reporter), else its ClientTelemetry's.
 */
export function answerGetTelemetrySubscriptions(telemetry: ClientTelemetry | null, askedId: string, client: TelemetryClient, subscriptions: Subscriptions, log: DebugLog): GetSubscriptionsAnswer {
  if (!telemetry) return refusedSubscriptions(ErrorCode.UNSUPPORTED_VERSION, askedId);
  const answer = telemetry.getSubscriptions(askedId, client, subscriptions);
  if (answer.errorCode !== ErrorCode.NONE) log.debug('telemetry subscriptions refused', { clientInstanceId: answer.clientInstanceId, errorCode: answer.errorCode });
  return answer;
}

/** A broker's answer to PushTelemetry, from a Kafka-protocol client or one of samsa's: UNSUPPORTED_VERSION without a telemetry receiver, else its ClientTelemetry's. */
export async function answerPushTelemetry(
  telemetry: ClientTelemetry | null,
  req: Parameters<ClientTelemetry['push']>[0],
  client: TelemetryClient,
  subscriptions: Subscriptions,
  ask: Ask,
  timeoutMs: number,
  log: DebugLog,
): Promise<{ errorCode: number; errorMessage: string | null }> {
  if (!telemetry) return { errorCode: ErrorCode.UNSUPPORTED_VERSION, errorMessage: 'this broker has no telemetry receiver (client.telemetry.receiver)' };
  const r = await telemetry.push(req, client, subscriptions, ask, timeoutMs);
  if (r.errorCode !== ErrorCode.NONE) log.debug('telemetry push refused', { clientInstanceId: req.clientInstanceId, errorCode: r.errorCode, reason: r.errorMessage });
  return r;
}

/** The same on every broker for the same metrics, interval and instance: a client may push to any. */
export function subscriptionIdOf(metrics: readonly string[], pushIntervalMs: number, instanceId: string): number {
  const crc = crc32c(Buffer.from(`[${metrics.join(', ')}]${pushIntervalMs}`, 'utf8'));
  return (crc ^ crc32c(Buffer.from(instanceId, 'base64url'))) | 0;
}
