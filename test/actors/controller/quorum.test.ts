/**
 * Three controllers in a metadata quorum, each on its own in-process node with its own metadata
 * dir, fake brokers recording what they are told, and a controller channel on the client node:
 * one controller is active and the others answer NotController naming it; standbys apply what
 * it commits; when its node dies another takes over with a higher controller epoch, the
 * metadata intact, and announces itself to the brokers; requests sent during the election wait
 * and are served; the quorum's state survives a restart of every controller. With a small
 * snapshot threshold every controller snapshots its state and compacts its log; a restart loads
 * the snapshot, and a controller that was down while the others compacted gets the leader's
 * snapshot.
 */
import { expect } from 'chai';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { controller } from '../../../actors/controller/controller.js';
import type { ControllerMsg, ControllerReply } from '../../../actors/controller/messages.js';
import { CONTROLLER_CHANNEL_PATH, controllerChannel } from '../../../actors/cluster-node/controller-channel.js';
import type { QuorumVoter } from '../../../actors/quorum/messages.js';
import type { ControlToBrokerMsg } from '../../../actors/broker/control-messages.js';
import { CONTROLLER_PATH, brokerPath } from '../../../src/protocol/cluster.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { ActorSystem } from '../../../src/runtime/actor-system.js';
import { isFailure, type ActorRef } from '../../../src/runtime/types.js';
import { InProcNetwork } from '../../../src/transport/inproc.js';
import { checkFor } from '../../helpers/check-for.js';
import { recordingBroker, type Reply } from './harness.js';

const ELECTION_MS = 500;
const VOTERS: QuorumVoter[] = [1, 2, 3].map((id) => ({ id, node: `c${id}` }));

class Quorum {
  readonly net = new InProcNetwork({ strictSerialization: true });
  readonly client = new ActorSystem({ nodeId: 'client', strictSerialization: true });
  readonly controllers = new Map<number, ActorSystem>();
  readonly inbox: ControlToBrokerMsg[] = [];
  readonly channel: ActorRef<ControllerMsg> = { node: 'client', path: CONTROLLER_CHANNEL_PATH };
  private readonly brokerNode = new ActorSystem({ nodeId: 'node-1', strictSerialization: true });

  constructor(
    readonly dir: string,
    private readonly extraConfig: Record<string, number> = {},
  ) {
    this.net.join(this.client);
    this.net.join(this.brokerNode);
    this.client.spawn(controllerChannel, { name: CONTROLLER_CHANNEL_PATH.slice(1), args: { voters: VOTERS, retryBudgetMs: 3_000 } });
    this.brokerNode.spawn(recordingBroker, { name: brokerPath(1).slice(1), args: { inbox: this.inbox } });
  }

  start(id: number): void {
    const sys = new ActorSystem({ nodeId: `c${id}`, strictSerialization: true });
    this.net.join(sys);
    // controller 1 stands first: its election timeout is the shortest
    const jitter = id === 1 ? 0 : 0.5 + id / 10;
    sys.spawn(controller, {
      name: CONTROLLER_PATH.slice(1),
      args: {
        clusterId: 'quorum-test',
        metadataDir: path.join(this.dir, `c${id}`),
        config: { 'controller.quorum.election.timeout.ms': ELECTION_MS, 'broker.session.timeout.ms': 60_000, ...this.extraConfig },
        quorum: { voterId: id, voters: VOTERS },
        quorumRandom: () => jitter,
        placementStartIndex: 0,
      },
    });
    this.controllers.set(id, sys);
  }

  async kill(id: number): Promise<void> {
    const sys = this.controllers.get(id)!;
    this.controllers.delete(id);
    this.net.leave(sys);
    await sys.stop();
  }

  async ask<T extends ControllerReply['type']>(msg: ControllerMsg, to: ActorRef<ControllerMsg> = this.channel): Promise<Reply<T>> {
    const r = await this.client.ask<ControllerReply>(to, msg, { timeoutMs: 20_000 });
    if (isFailure(r)) throw new Error(`controller failed: ${r.reason}: ${r.message}`);
    return r as Reply<T>;
  }

  describe(id: number): Promise<Reply<'DescribeQuorumResponse'>> {
    return this.ask<'DescribeQuorumResponse'>({ type: 'DescribeQuorum', local: true }, { node: `c${id}`, path: CONTROLLER_PATH });
  }

  /** The active controller's id, once one is active and every running controller agrees. */
  async active(): Promise<number> {
    return checkFor(
      async () => {
        const ds = await Promise.all([...this.controllers.keys()].map(async (id) => ({ id, d: await this.describe(id) })));
        const active = ds.filter((x) => x.d.active);
        if (active.length !== 1) return null;
        const leader = active[0]!.id;
        return ds.every((x) => x.d.quorum?.leaderId === leader) ? leader : null;
      },
      10_000,
      20,
    );
  }

  async stop(): Promise<void> {
    for (const s of [this.client, this.brokerNode, ...this.controllers.values()]) await s.stop();
  }
}

describe('actors/controller quorum', function () {
  this.timeout(30_000);
  let dir: string;
  let q: Quorum;

  beforeEach(async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'samsa-quorum-'));
    q = new Quorum(dir);
    for (const id of [1, 2, 3]) q.start(id);
  });
  afterEach(async () => {
    await q.stop();
    await fsp.rm(dir, { recursive: true, force: true });
  });

  it('one controller is active; the others answer NotController naming it, and apply what it commits', async () => {
    const active = await q.active();
    expect(active).to.equal(1);
    const standby = { node: 'c2', path: CONTROLLER_PATH };
    const r = await q.ask<'NotController'>({ type: 'Metadata' }, standby);
    expect(r).to.deep.include({ type: 'NotController', errorCode: ErrorCode.NOT_CONTROLLER, leaderId: 1, leaderNode: 'c1' });

    // through the channel, from any node, requests reach the active controller
    expect((await q.ask<'BrokerRegistrationResponse'>({ type: 'BrokerRegistration', brokerId: 1, node: 'node-1', incarnationId: 'i1' })).errorCode).to.equal(0);
    const created = await q.ask<'CreateTopicsResponse'>({ type: 'CreateTopics', topics: [{ name: 't', numPartitions: 2, replicationFactor: 1 }] });
    expect(created.topics[0]!.errorCode).to.equal(0);
    const leaderIndex = (await q.describe(1)).appliedIndex;
    await checkFor(async () => (await q.describe(2)).appliedIndex === leaderIndex && (await q.describe(3)).appliedIndex === leaderIndex);
    const d = await q.describe(1);
    expect(d.quorum!.voters.map((v) => v.logEndIndex)).to.deep.equal([leaderIndex, leaderIndex, leaderIndex]);
    expect(d.quorum!.commitIndex).to.equal(leaderIndex);
    // through the channel, DescribeQuorum is the active controller's view
    const viaChannel = await q.ask<'DescribeQuorumResponse'>({ type: 'DescribeQuorum' });
    expect(viaChannel).to.deep.include({ active: true, appliedIndex: leaderIndex });
    expect(viaChannel.quorum).to.deep.include({ voterId: 1, role: 'Leader', leaderId: 1 });
  });

  it('when the active controller dies another takes over: the metadata is intact, the epoch one higher, the brokers told', async () => {
    expect(await q.active()).to.equal(1);
    expect((await q.ask<'BrokerRegistrationResponse'>({ type: 'BrokerRegistration', brokerId: 1, node: 'node-1', incarnationId: 'i1' })).errorCode).to.equal(0);
    await q.ask<'CreateTopicsResponse'>({ type: 'CreateTopics', topics: [{ name: 'kept', numPartitions: 3, replicationFactor: 1 }] });
    const before = (await q.ask<'MetadataResponse'>({ type: 'Metadata' })).metadata;
    q.inbox.length = 0;

    await q.kill(1);
    // asked during the election, served by the new controller
    const during = q.ask<'CreateTopicsResponse'>({ type: 'CreateTopics', topics: [{ name: 'after', numPartitions: 1, replicationFactor: 1 }] });
    const next = await q.active();
    expect(next).to.be.oneOf([2, 3]);
    expect((await during).topics[0]!.errorCode).to.equal(0);

    const after = (await q.ask<'MetadataResponse'>({ type: 'Metadata' })).metadata;
    expect(after.controllerEpoch).to.equal(before.controllerEpoch + 1);
    expect(after.controllerNode).to.equal(`c${next}`);
    expect(after.topics.find((t) => t.name === 'kept')).to.deep.equal(before.topics.find((t) => t.name === 'kept'));
    expect(after.topics.map((t) => t.name)).to.include('after');
    // the live broker heard of the new controller epoch, and its session carried over
    await checkFor(() => q.inbox.some((m) => m.type === 'UpdateMetadataRequest' && m.controllerEpoch === after.controllerEpoch));
    const hb = await q.ask<'BrokerHeartbeatResponse'>({ type: 'BrokerHeartbeat', brokerId: 1, brokerEpoch: 1 });
    expect(hb).to.deep.include({ errorCode: 0, isFenced: false });

    // two of three are still a majority; with one of them gone too, nothing commits, and a
    // request is refused once it has waited out the elections
    await q.kill(next);
    const r = await q.client.ask<ControllerReply>(q.channel, { type: 'CreateTopics', topics: [{ name: 'never', numPartitions: 1, replicationFactor: 1 }] }, { timeoutMs: 30_000 });
    expect(isFailure(r) || r.type === 'NotController' || (r.type === 'CreateTopicsResponse' && r.topics[0]!.errorCode !== 0), JSON.stringify(r)).to.equal(true);
  });

  it('the quorum state survives a restart of every controller', async () => {
    await q.active();
    await q.ask<'CreateTopicsResponse'>({ type: 'CreateTopics', topics: [{ name: 'durable', numPartitions: 1, replicationFactor: 1, assignments: [[1]] }] });
    const before = (await q.ask<'MetadataResponse'>({ type: 'Metadata' })).metadata;
    for (const id of [1, 2, 3]) await q.kill(id);
    for (const id of [1, 2, 3]) q.start(id);
    await q.active();
    const after = (await q.ask<'MetadataResponse'>({ type: 'Metadata' })).metadata;
    expect(after.topics).to.deep.equal(before.topics);
    expect(after.controllerEpoch).to.be.greaterThan(before.controllerEpoch);
    const terms = await Promise.all([1, 2, 3].map(async (id) => (await q.describe(id)).quorum!.term));
    expect(new Set(terms).size).to.equal(1);
  });

  describe('snapshots', () => {
    let sq: Quorum;
    let sdir: string;
    beforeEach(async () => {
      // the outer quorum is not used here
      await q.stop();
      sdir = await fsp.mkdtemp(path.join(os.tmpdir(), 'samsa-quorum-snap-'));
      sq = new Quorum(sdir, { 'metadata.log.max.record.bytes.between.snapshots': 4_000 });
      q = sq;
      for (const id of [1, 2, 3]) sq.start(id);
    });
    afterEach(async () => {
      await fsp.rm(sdir, { recursive: true, force: true });
    });

    const createTopics = async (prefix: string, n: number) => {
      for (let i = 0; i < n; i++) {
        const r = await sq.ask<'CreateTopicsResponse'>({ type: 'CreateTopics', topics: [{ name: `${prefix}-${i}`, assignments: [[1], [1]] }] });
        expect(r.topics[0]!.errorCode).to.equal(0);
      }
    };

    it('every controller snapshots and compacts its log; a restart of all of them loads the snapshots', async () => {
      await sq.active();
      expect((await sq.ask<'BrokerRegistrationResponse'>({ type: 'BrokerRegistration', brokerId: 1, node: 'node-1', incarnationId: 'i1' })).errorCode).to.equal(0);
      await createTopics('t', 40);
      const before = (await sq.ask<'MetadataResponse'>({ type: 'Metadata' })).metadata;
      await checkFor(async () => {
        const ds = await Promise.all([1, 2, 3].map((id) => sq.describe(id)));
        return ds.every((d) => d.quorum!.snapshotIndex > 0);
      });
      for (const id of [1, 2, 3]) {
        const files = await fsp.readdir(path.join(sdir, `c${id}`));
        expect(files).to.include('metadata-snapshot.json');
        const log = await fsp.readFile(path.join(sdir, `c${id}`, 'controller-metadata.log'), 'utf8');
        expect(log.split('\n')[0]).to.match(/"start":\d+/); // compacted
      }
      for (const id of [1, 2, 3]) await sq.kill(id);
      for (const id of [1, 2, 3]) sq.start(id);
      await sq.active();
      const after = (await sq.ask<'MetadataResponse'>({ type: 'Metadata' })).metadata;
      expect(after.topics).to.deep.equal(before.topics);
      expect(after.brokers).to.deep.equal(before.brokers);
      expect(after.controllerEpoch).to.be.greaterThan(before.controllerEpoch);
    });

    it('a controller that was down while the others compacted catches up from the leader\'s snapshot', async () => {
      const active = await sq.active();
      expect((await sq.ask<'BrokerRegistrationResponse'>({ type: 'BrokerRegistration', brokerId: 1, node: 'node-1', incarnationId: 'i1' })).errorCode).to.equal(0);
      const late = active === 3 ? 2 : 3;
      await sq.kill(late);
      await createTopics('u', 40);
      const leaderView = await sq.describe(active);
      expect(leaderView.quorum!.snapshotIndex).to.be.greaterThan(0);
      sq.start(late);
      await checkFor(async () => {
        const d = await sq.describe(late);
        return d.quorum!.snapshotIndex > 0 && d.appliedIndex === (await sq.describe(active)).appliedIndex;
      }, 10_000, 20);
      // the late controller holds the same metadata: it takes over with it
      const before = (await sq.ask<'MetadataResponse'>({ type: 'Metadata' })).metadata;
      await sq.kill(active);
      const next = await sq.active();
      const after = (await sq.ask<'MetadataResponse'>({ type: 'Metadata' })).metadata;
      expect(after.topics).to.deep.equal(before.topics);
      expect(next).to.not.equal(active);
    });
  });
});
