/**
 * A consumer actor on one ActorSystem with a FakeClock, with fakes for what it talks to: brokers
 * 1 and 2 (Metadata from a cluster view the test sets, FindCoordinator naming the broker the test
 * says, Fetch answered with the records below the log ends the test sets, else held unanswered)
 * and their group coordinators, which answer nothing themselves:
 * every request they get is logged in arrival order and the test answers it. The consumer's
 * events are collected.
 */
import { expect } from 'chai';
import { consumer as consumerActor } from '../../../actors/consumer/consumer.js';
import type { ConsumerDescription, ConsumerEvent, ConsumerMsg, PollResult, TopicPartitionOffset } from '../../../actors/consumer/messages.js';
import type { CoordinatorMsg } from '../../../actors/group-coordinator/messages.js';
import type { ClusterMetadata, TopicMetadata } from '../../../src/protocol/cluster.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { encodeRecordBatch } from '../../../src/protocol/record-batch.js';
import type { ReplyToken } from '../../../src/runtime/actor-definition.js';
import { defineActor } from '../../../src/runtime/actor-definition.js';
import { ActorSystem } from '../../../src/runtime/actor-system.js';
import { FakeClock } from '../../../src/runtime/clock.js';
import type { ActorRef, Message } from '../../../src/runtime/types.js';
import { checkFor } from '../../helpers/check-for.js';

export const LONG = { timeoutMs: 24 * 3600_000 };
const NODE = 'b1';

/** A request a fake coordinator got: the test answers it with `answer`. */
export interface CoordinatorRequest<T extends CoordinatorMsg['type'] = CoordinatorMsg['type']> {
  /** The broker whose coordinator got it. */
  brokerId: number;
  msg: Extract<CoordinatorMsg, { type: T }>;
  token: ReplyToken;
  taken: boolean;
}

/** What the fakes share with the test (in-process, by reference). */
interface World {
  topics: TopicMetadata[];
  /** The broker FindCoordinator names. */
  coordinatorBroker: number;
  /** Log end offset by `topic-partition`: a Fetch from below it gets the records up to it (values `v<offset>`). */
  logEnds: Record<string, number>;
  requests: CoordinatorRequest[];
  events: ConsumerEvent[];
}

type Answer = { type: 'Answer'; token: ReplyToken; reply: Message };
type Logged = Extract<CoordinatorMsg, { type: 'ConsumerGroupHeartbeat' | 'OffsetCommit' | 'OffsetFetch' | 'JoinGroup' | 'SyncGroup' | 'Heartbeat' | 'LeaveGroup' }>;
type FakeCoordinatorMsg = Logged | Answer;
type FakeCoordinatorState = { world: World; brokerId: number };

function logRequest(s: FakeCoordinatorState, m: Logged, ctx: { deferReply(): ReplyToken | undefined }): void {
  const token = ctx.deferReply();
  if (token) s.world.requests.push({ brokerId: s.brokerId, msg: m as never, token, taken: false });
}

const fakeCoordinator = defineActor<FakeCoordinatorState, FakeCoordinatorMsg, FakeCoordinatorState>({
  kind: 'fake-group-coordinator',
  supervision: 'resume',
  init: (_ctx, args) => args,
  handlers: {
    ConsumerGroupHeartbeat: logRequest,
    OffsetCommit: logRequest,
    OffsetFetch: logRequest,
    // the classic protocol's
    JoinGroup: logRequest,
    SyncGroup: logRequest,
    Heartbeat: logRequest,
    LeaveGroup: logRequest,
    Answer(_s, m, ctx) {
      ctx.replyTo(m.token, m.reply);
    },
  },
});

type FakeBrokerMsg = { type: 'Metadata' } | { type: 'FindCoordinator'; key: string } | { type: 'Fetch'; partitions: { topic: string; partition: number; fetchOffset: number }[] };

const fakeBroker = defineActor<{ world: World; brokerId: number; held: ReplyToken[] }, FakeBrokerMsg, { world: World; brokerId: number }>({
  kind: 'fake-broker',
  supervision: 'resume',
  init: (ctx, args) => {
    ctx.spawn(fakeCoordinator, { name: 'group-coordinator', args });
    return { ...args, held: [] };
  },
  handlers: {
    Metadata(s, _m, ctx) {
      const metadata: ClusterMetadata = {
        clusterId: 'test',
        controllerNode: NODE,
        controllerEpoch: 1,
        brokers: [1, 2].map((brokerId) => ({ brokerId, node: NODE, rack: null, fenced: false, brokerEpoch: 1 })),
        topics: s.world.topics,
      };
      ctx.reply({ type: 'MetadataResponse', errorCode: ErrorCode.NONE, metadata });
    },
    FindCoordinator(s, _m, ctx) {
      ctx.reply({ type: 'FindCoordinatorResponse', errorCode: ErrorCode.NONE, brokerId: s.world.coordinatorBroker, node: NODE });
    },
    Fetch(s, m, ctx) {
      const partitions = m.partitions
        .filter((p) => (s.world.logEnds[`${p.topic}-${p.partition}`] ?? 0) > p.fetchOffset)
        .map((p) => {
          const end = s.world.logEnds[`${p.topic}-${p.partition}`]!;
          const records = Array.from({ length: end - p.fetchOffset }, (_, i) => ({ value: Buffer.from(`v${p.fetchOffset + i}`), timestamp: 1 }));
          return { topic: p.topic, partition: p.partition, errorCode: ErrorCode.NONE, highWatermark: end, logStartOffset: 0, logEndOffset: end, records: encodeRecordBatch({ baseOffset: p.fetchOffset, records }) };
        });
      if (partitions.length > 0) return ctx.reply({ type: 'FetchResponse', errorCode: ErrorCode.NONE, partitions });
      // nothing to read: a long poll that never ends
      const token = ctx.deferReply();
      if (token) s.held.push(token);
    },
  },
});

const eventSink = defineActor<{ world: World }, { type: 'ConsumerEvent'; event: ConsumerEvent }, World>({
  kind: 'consumer-event-sink',
  supervision: 'resume',
  init: (_ctx, world) => ({ world }),
  handlers: {
    ConsumerEvent(s, m) {
      s.world.events.push(m.event);
    },
  },
});

export function topic(name: string, topicId: string, partitions: number): TopicMetadata {
  return {
    name,
    topicId,
    internal: false,
    config: {},
    partitions: Array.from({ length: partitions }, (_, partition) => ({ topic: name, partition, replicas: [1], isr: [1], leader: 1, leaderEpoch: 0, partitionEpoch: 0 })),
  };
}

export class ConsumerHarness {
  readonly clock = new FakeClock();
  readonly sys: ActorSystem;
  readonly world: World = { topics: [], coordinatorBroker: 1, logEnds: {}, requests: [], events: [] };
  consumer!: ActorRef<ConsumerMsg>;

  constructor(topics: TopicMetadata[]) {
    this.world.topics = topics;
    this.sys = new ActorSystem({ nodeId: NODE, clock: this.clock, strictSerialization: true, defaultAskTimeoutMs: LONG.timeoutMs });
    for (const brokerId of [1, 2]) this.sys.spawn(fakeBroker, { name: `broker-${brokerId}`, args: { world: this.world, brokerId } });
  }

  get events(): ConsumerEvent[] {
    return this.world.events;
  }

  /** A consumer with group.protocol consumer and `config` over it (`'group.protocol': 'classic'` for the classic one). */
  start(config: Record<string, unknown> = {}): ActorRef<ConsumerMsg> {
    const listener = this.sys.spawn(eventSink, { name: 'events', args: this.world });
    this.consumer = this.sys.spawn(consumerActor, {
      name: 'consumer',
      args: { bootstrap: [{ brokerId: 1, node: NODE }], config: { 'group.id': 'g', 'group.protocol': 'consumer', 'client.id': 'c', ...config }, listener },
    });
    return this.consumer;
  }

  async stop(): Promise<void> {
    await this.sys.stop();
  }

  ask<R>(msg: ConsumerMsg): Promise<R> {
    return this.sys.ask(this.consumer, msg, LONG) as Promise<R>;
  }

  subscribe(topics: string[], pattern: string | null = null): Promise<unknown> {
    return this.ask({ type: 'Subscribe', topics, pattern });
  }

  /** A poll that hands `processed` over and returns at once. */
  poll(processed: TopicPartitionOffset[] = []): Promise<PollResult> {
    return this.ask<PollResult>({ type: 'Poll', maxRecords: 10, timeoutMs: 0, processed });
  }

  describe(): Promise<ConsumerDescription> {
    return this.ask<ConsumerDescription>({ type: 'DescribeConsumer' });
  }

  /** The next request of `type` not taken yet (waiting for it), taken now. */
  async next<T extends CoordinatorMsg['type']>(type: T): Promise<CoordinatorRequest<T>> {
    const r = await checkFor(() => this.world.requests.find((x) => !x.taken && x.msg.type === type), 5_000, 2);
    r.taken = true;
    return r as unknown as CoordinatorRequest<T>;
  }

  /** Requests of `type` not taken yet, after letting the consumer's queued messages run. */
  async pending(type: CoordinatorMsg['type']): Promise<CoordinatorRequest[]> {
    await this.settle();
    return this.world.requests.filter((x) => !x.taken && x.msg.type === type);
  }

  async expectNone(type: CoordinatorMsg['type']): Promise<void> {
    expect((await this.pending(type)).map((r) => r.msg)).to.deep.equal([]);
  }

  answer<T extends CoordinatorMsg['type']>(r: CoordinatorRequest<T>, reply: Message): void {
    this.sys.send({ node: NODE, path: `/broker-${r.brokerId}/group-coordinator` } as ActorRef<FakeCoordinatorMsg>, { type: 'Answer', token: r.token, reply });
  }

  /** Lets every queued message run (the consumer answers in turn). */
  async settle(): Promise<void> {
    for (let i = 0; i < 3; i++) await this.describe();
  }

  /** Moves the fake clock on, letting timers and their reactions run. */
  async advance(ms: number): Promise<void> {
    await this.clock.advanceAsync(ms);
    await this.settle();
  }

  eventKinds(): string[] {
    return this.world.events.map((e) => e.kind);
  }
}
