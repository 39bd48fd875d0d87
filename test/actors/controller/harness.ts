/**
 * A controller on its own node (with a FakeClock) and fake brokers on their own in-process
 * nodes, joined by a strict in-process network. A fake broker records every request the
 * controller tells it; `settle()` pings each of them so that everything the controller sent
 * before its last reply has been recorded (mailboxes are FIFO), without sleeping.
 */
import { expect } from 'chai';
import { controller, type ControllerArgs } from '../../../actors/controller/controller.js';
import type { ControllerMsg, ControllerReply, CreatableTopic } from '../../../actors/controller/messages.js';
import type { ControlToBrokerMsg, LeaderAndIsrPartition } from '../../../actors/broker/control-messages.js';
import { CONTROLLER_PATH, brokerPath, type ClusterMetadata, type PartitionState } from '../../../src/protocol/cluster.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { defineActor } from '../../../src/runtime/actor-definition.js';
import { ActorSystem } from '../../../src/runtime/actor-system.js';
import { FakeClock } from '../../../src/runtime/clock.js';
import { isFailure, type ActorRef, type Message } from '../../../src/runtime/types.js';
import { InProcNetwork } from '../../../src/transport/inproc.js';

export type Reply<T extends ControllerReply['type']> = Extract<ControllerReply, { type: T }>;

type RecorderMsg = ControlToBrokerMsg | { type: 'Ping' };

/** Records what the controller sends; answers Ping so tests can wait for its mailbox to drain. */
export const recordingBroker = defineActor<{ inbox: ControlToBrokerMsg[] }, RecorderMsg, { inbox: ControlToBrokerMsg[] }>({
  kind: 'recording-broker',
  init: (_ctx, args) => ({ inbox: args.inbox }),
  supervision: 'resume',
  handlers: {
    LeaderAndIsrRequest: (s, m) => void s.inbox.push(m),
    StopReplicaRequest: (s, m) => void s.inbox.push(m),
    UpdateMetadataRequest: (s, m) => void s.inbox.push(m),
    Ping: (_s, _m, ctx) => ctx.reply({ type: 'Pong' }),
  },
});

export interface HarnessOptions {
  /** Broker ids to start fake brokers for (and register, unless `register` is false). */
  brokers?: number[];
  register?: boolean;
  args?: Partial<ControllerArgs>;
  /** eligible.leader.replicas.version to set once started (a new cluster has 1; 0 runs as before KIP-966). */
  elr?: 0 | 1;
}

export class ControllerHarness {
  readonly clock = new FakeClock();
  readonly net = new InProcNetwork({ strictSerialization: true });
  readonly controllerNode: ActorSystem;
  readonly client: ActorSystem;
  readonly controllerRef: ActorRef<ControllerMsg> = { node: 'controller', path: CONTROLLER_PATH };
  readonly brokerNodes = new Map<number, ActorSystem>();
  readonly inboxes = new Map<number, ControlToBrokerMsg[]>();
  readonly epochs = new Map<number, number>();
  readonly watcherInbox: ControlToBrokerMsg[] = [];
  readonly watcherRef: ActorRef<Message>;
  args: ControllerArgs;

  private constructor(args: ControllerArgs) {
    this.args = args;
    this.controllerNode = new ActorSystem({ nodeId: 'controller', clock: this.clock, strictSerialization: true });
    this.client = new ActorSystem({ nodeId: 'client', strictSerialization: true });
    this.net.join(this.controllerNode);
    this.net.join(this.client);
    this.watcherRef = this.client.spawn(recordingBroker, { name: 'watcher', args: { inbox: this.watcherInbox } });
  }

  static async start(opts: HarnessOptions = {}): Promise<ControllerHarness> {
    const h = new ControllerHarness({ clusterId: 'test-cluster', metadataDir: null, placementStartIndex: 0, ...opts.args });
    for (const id of opts.brokers ?? []) h.addBroker(id);
    await h.startController();
    if (opts.elr !== undefined) await h.setElr(opts.elr);
    if (opts.register !== false) for (const id of opts.brokers ?? []) await h.register(id);
    return h;
  }

  /** Sets eligible.leader.replicas.version (an upgrade to 1, a safe downgrade to 0). */
  async setElr(level: 0 | 1): Promise<void> {
    const r = await this.ask<'UpdateFeaturesResponse'>({ type: 'UpdateFeatures', updates: [{ feature: 'eligible.leader.replicas.version', level, upgradeType: level === 1 ? 1 : 2 }] });
    expect(r.errorCode, r.errorMessage ?? '').to.equal(0);
  }

  async startController(args: Partial<ControllerArgs> = {}): Promise<void> {
    this.args = { ...this.args, ...args };
    this.controllerNode.spawn(controller, { name: CONTROLLER_PATH.slice(1), args: this.args });
    await this.metadata(); // waits for init
  }

  /** Stops the controller actor (its log is closed) and starts a new one on the same node. */
  async restartController(args: Partial<ControllerArgs> = {}): Promise<void> {
    await this.controllerNode.stopActor(this.controllerRef);
    await this.startController(args);
  }

  addBroker(id: number): void {
    const node = new ActorSystem({ nodeId: `node-${id}`, strictSerialization: true });
    this.net.join(node);
    const inbox: ControlToBrokerMsg[] = [];
    node.spawn(recordingBroker, { name: brokerPath(id).slice(1), args: { inbox } });
    this.brokerNodes.set(id, node);
    this.inboxes.set(id, inbox);
  }

  async ask<T extends ControllerReply['type']>(msg: ControllerMsg): Promise<Reply<T>> {
    const r = await this.client.ask<ControllerReply>(this.controllerRef, msg, { timeoutMs: 10_000 });
    if (isFailure(r)) throw new Error(`controller failed: ${r.reason}: ${r.message}`);
    return r as Reply<T>;
  }

  async register(id: number, incarnationId = `inc-${id}`): Promise<Reply<'BrokerRegistrationResponse'>> {
    const r = await this.ask<'BrokerRegistrationResponse'>({ type: 'BrokerRegistration', brokerId: id, node: `node-${id}`, incarnationId, rack: null });
    if (r.errorCode === 0) this.epochs.set(id, r.brokerEpoch);
    return r;
  }

  heartbeat(id: number, brokerEpoch = this.epochs.get(id) ?? -1, wantShutDown?: boolean): Promise<Reply<'BrokerHeartbeatResponse'>> {
    const msg: ControllerMsg = wantShutDown === undefined ? { type: 'BrokerHeartbeat', brokerId: id, brokerEpoch } : { type: 'BrokerHeartbeat', brokerId: id, brokerEpoch, wantShutDown };
    return this.ask<'BrokerHeartbeatResponse'>(msg);
  }

  /** Heartbeats from every broker in `ids`. */
  async heartbeatAll(ids: number[]): Promise<void> {
    for (const id of ids) expect((await this.heartbeat(id)).errorCode).to.equal(0);
  }

  createTopics(topics: CreatableTopic[], validateOnly?: boolean): Promise<Reply<'CreateTopicsResponse'>> {
    return this.ask<'CreateTopicsResponse'>(validateOnly === undefined ? { type: 'CreateTopics', topics } : { type: 'CreateTopics', topics, validateOnly });
  }

  async createTopic(name: string, numPartitions: number, replicationFactor: number, config?: Record<string, string | number>): Promise<void> {
    const r = await this.createTopics([{ name, numPartitions, replicationFactor, ...(config ? { config } : {}) }]);
    expect(r.topics[0], JSON.stringify(r.topics[0])).to.include({ errorCode: 0 });
  }

  async metadata(topics?: string[]): Promise<ClusterMetadata> {
    const r = await this.ask<'MetadataResponse'>(topics ? { type: 'Metadata', topics } : { type: 'Metadata' });
    return r.metadata;
  }

  async partition(topic: string, partition: number): Promise<PartitionState> {
    const md = await this.metadata([topic]);
    const p = md.topics[0]?.partitions[partition];
    if (!p) throw new Error(`no partition ${topic}-${partition}`);
    return p;
  }

  /**
   * The leader of `topic`-`partition` puts `isr` in its ISR, as a catching-up follower's leader
   * would (AlterPartition with the current epochs); the change must be taken (NEW_LEADER_ELECTED:
   * taken, completing a reassignment that moved the leadership away from the asking leader).
   */
  async alterIsr(topic: string, partition: number, isr: number[]): Promise<Reply<'AlterPartitionResponse'>> {
    const p = await this.partition(topic, partition);
    const r = await this.ask<'AlterPartitionResponse'>({
      type: 'AlterPartition',
      brokerId: p.leader,
      brokerEpoch: this.epochs.get(p.leader)!,
      topic,
      partition,
      leaderEpoch: p.leaderEpoch,
      partitionEpoch: p.partitionEpoch,
      newIsr: isr,
    });
    expect(r.errorCode, r.errorMessage).to.be.oneOf([ErrorCode.NONE, ErrorCode.NEW_LEADER_ELECTED]);
    expect(r.state, 'the state comes with the answer').to.not.equal(null);
    return r;
  }

  /** Waits until every fake broker and the watcher handled what was sent to them so far. */
  async settle(): Promise<void> {
    for (const [id, node] of this.brokerNodes) {
      if (!node.isRunning) continue;
      const r = await this.client.ask({ node: node.nodeId, path: brokerPath(id) }, { type: 'Ping' }, { timeoutMs: 5_000 });
      expect(r.type).to.equal('Pong');
    }
    expect((await this.client.ask(this.watcherRef, { type: 'Ping' })).type).to.equal('Pong');
  }

  /** Moves the controller's clock and waits for what the timers set off. */
  async advance(ms: number): Promise<void> {
    this.clock.advance(ms);
    await this.metadata(); // queued behind the timer messages
    await this.settle();
  }

  /**
   * Moves the clock `totalMs` in steps of `stepMs`, heartbeating the brokers in `alive` after
   * each step: the others fall silent.
   */
  async advanceKeeping(alive: number[], totalMs: number, stepMs = 2_000): Promise<void> {
    for (let done = 0; done < totalMs; done += stepMs) {
      await this.advance(Math.min(stepMs, totalMs - done));
      await this.heartbeatAll(alive);
    }
  }

  inbox(id: number): ControlToBrokerMsg[] {
    return this.inboxes.get(id) ?? [];
  }

  received<T extends ControlToBrokerMsg['type']>(id: number, type: T): Extract<ControlToBrokerMsg, { type: T }>[] {
    return this.inbox(id).filter((m): m is Extract<ControlToBrokerMsg, { type: T }> => m.type === type);
  }

  /** Every LeaderAndIsr partition entry broker `id` got, flattened. */
  leaderAndIsr(id: number): LeaderAndIsrPartition[] {
    return this.received(id, 'LeaderAndIsrRequest').flatMap((m) => m.partitions);
  }

  clearInboxes(): void {
    for (const inbox of this.inboxes.values()) inbox.length = 0;
    this.watcherInbox.length = 0;
  }

  async watch(): Promise<void> {
    await this.ask<'MetadataResponse'>({ type: 'WatchMetadata', watcher: this.watcherRef });
    await this.settle();
  }

  async stop(): Promise<void> {
    await this.client.stop();
    for (const n of this.brokerNodes.values()) await n.stop();
    await this.controllerNode.stop();
  }
}
