/**
 * A broker for client telemetry tests (KIP-714): answers Metadata (one broker, 'b1' at
 * /broker-1, topic 't' with one partition led by it), takes Produce with acks 1 (base offset 0),
 * and logs each GetTelemetrySubscriptions and PushTelemetry with its reply token; the test answers
 * them (Answer). A consumer's other requests are held unanswered (FindCoordinator answers
 * COORDINATOR_NOT_AVAILABLE). olderBroker knows no telemetry request at all: a client's ask of it
 * fails invalid-message. heldMetadataProxy stands for a node's metadata proxy that answers
 * Metadata only once told to (Release).
 */
import type { BrokerMsg } from '../../actors/broker/messages.js';
import type { ClusterMetadata } from '../../src/protocol/cluster.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { defineActor, type ReplyToken } from '../../src/runtime/actor-definition.js';
import { ActorSystem } from '../../src/runtime/actor-system.js';
import { FakeClock } from '../../src/runtime/clock.js';
import type { ActorRef, Message } from '../../src/runtime/types.js';
import { checkFor } from './check-for.js';

export type TelemetryRequestMsg = Extract<BrokerMsg, { type: 'GetTelemetrySubscriptions' | 'PushTelemetry' }>;

export interface LoggedTelemetryRequest {
  msg: TelemetryRequestMsg;
  token: ReplyToken;
}

/** Shared with the test by reference (the fake runs in the test's process). */
export interface TelemetryWorld {
  requests: LoggedTelemetryRequest[];
}

export const TELEMETRY_NODE = 'b1';

const METADATA: ClusterMetadata = {
  clusterId: 'fake',
  controllerNode: TELEMETRY_NODE,
  controllerEpoch: 1,
  brokers: [{ brokerId: 1, node: TELEMETRY_NODE, rack: null, fenced: false, brokerEpoch: 1 }],
  topics: [{ name: 't', topicId: 'tid', internal: false, config: {}, partitions: [{ topic: 't', partition: 0, replicas: [1], isr: [1], leader: 1, leaderEpoch: 0, partitionEpoch: 0 }] }],
};

type FakeMsg =
  | TelemetryRequestMsg
  | { type: 'Metadata' }
  | { type: 'Produce'; partitions: { topic: string; partition: number }[] }
  | { type: 'FindCoordinator' }
  | { type: 'Answer'; token: ReplyToken; reply: Message };

function log(s: TelemetryWorld, m: TelemetryRequestMsg, ctx: { deferReply(): ReplyToken | undefined }): void {
  const token = ctx.deferReply();
  if (token) s.requests.push({ msg: m, token });
}

export const fakeTelemetryBroker = defineActor<TelemetryWorld, FakeMsg, TelemetryWorld>({
  kind: 'fake-telemetry-broker',
  supervision: 'resume',
  init: (_ctx, world) => world,
  handlers: {
    GetTelemetrySubscriptions: log,
    PushTelemetry: log,
    Metadata: (_s, _m, ctx) => ctx.reply({ type: 'MetadataResponse', errorCode: ErrorCode.NONE, metadata: METADATA }),
    Produce: (_s, m, ctx) =>
      ctx.reply({ type: 'BrokerProduceResponse', errorCode: 0, partitions: m.partitions.map((p) => ({ topic: p.topic, partition: p.partition, errorCode: 0, errorMessage: null, baseOffset: 0, logAppendTime: -1, logStartOffset: 0 })) }),
    FindCoordinator: (_s, _m, ctx) => ctx.reply({ type: 'FindCoordinatorResponse', errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, brokerId: -1, node: '' }),
    Answer: (_s, m, ctx) => ctx.replyTo(m.token, m.reply),
  },
});

/** A broker that knows no telemetry request (Metadata only). */
export const olderBroker = defineActor<null, { type: 'Metadata' }>({
  kind: 'older-broker',
  supervision: 'resume',
  init: () => null,
  handlers: {
    Metadata: (_s, _m, ctx) => ctx.reply({ type: 'MetadataResponse', errorCode: ErrorCode.NONE, metadata: METADATA }),
  },
});

/** A node's metadata proxy (/metadata) that holds Metadata requests until Release. */
export const heldMetadataProxy = defineActor<{ held: ReplyToken[]; released: boolean }, { type: 'Metadata' } | { type: 'Release' }>({
  kind: 'held-metadata-proxy',
  supervision: 'resume',
  init: () => ({ held: [], released: false }),
  handlers: {
    Metadata: (s, _m, ctx) => {
      const token = ctx.deferReply();
      if (s.released) ctx.reply({ type: 'MetadataResponse', errorCode: ErrorCode.NONE, metadata: METADATA });
      else if (token) s.held.push(token);
    },
    Release: (s, _m, ctx) => {
      s.released = true;
      for (const t of s.held.splice(0)) ctx.replyTo(t, { type: 'MetadataResponse', errorCode: ErrorCode.NONE, metadata: METADATA });
    },
  },
});

/** The zero client instance id a client asks with first (Kafka's Uuid.ZERO_UUID, base64). */
export const ZERO_INSTANCE_ID = 'AAAAAAAAAAAAAAAAAAAAAA';
/** Asks never time out in these tests: the fake clock moves days. */
export const DAY_MS = 24 * 3600_000;

/** A GetTelemetrySubscriptions answer: `base` over Kafka's usual values, then `over`. */
export function subscriptionAnswer(base: Record<string, unknown>, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 'GetTelemetrySubscriptionsResponse',
    throttleTimeMs: 0,
    errorCode: ErrorCode.NONE,
    pushIntervalMs: 1_000,
    telemetryMaxBytes: 1 << 20,
    deltaTemporality: true,
    ...base,
    ...over,
  };
}

/** What each test of a client's push gets: a fresh system on a fake clock, with the fake broker. */
export interface TelemetryHarness {
  readonly clock: FakeClock;
  readonly sys: ActorSystem;
  readonly world: TelemetryWorld;
  readonly broker: ActorRef<{ type: 'Answer'; token: ReplyToken; reply: Message }>;
  /** The `i`th telemetry request the broker got (waiting for it). */
  request(i: number): Promise<LoggedTelemetryRequest>;
  /** Answers a request the broker logged. */
  answer(r: LoggedTelemetryRequest, reply: Record<string, unknown>): void;
}

/** Registers the hooks: before each test a system with the fake broker at TELEMETRY_NODE, stopped after it. */
export function telemetryHarness(): TelemetryHarness {
  let clock: FakeClock;
  let sys: ActorSystem;
  let world: TelemetryWorld;
  let broker: TelemetryHarness['broker'];
  beforeEach(() => {
    clock = new FakeClock();
    sys = new ActorSystem({ nodeId: TELEMETRY_NODE, clock, strictSerialization: true, defaultAskTimeoutMs: DAY_MS });
    world = { requests: [] };
    broker = sys.spawn(fakeTelemetryBroker, { name: 'broker-1', args: world }) as never;
  });
  afterEach(async () => {
    await sys.stop();
  });
  return {
    get clock() {
      return clock;
    },
    get sys() {
      return sys;
    },
    get world() {
      return world;
    },
    get broker() {
      return broker;
    },
    request: (i) => checkFor(() => world.requests[i], 5_000, 1),
    answer: (r, reply) => sys.send(broker, { type: 'Answer', token: r.token, reply: reply as unknown as Message }),
  };
}
