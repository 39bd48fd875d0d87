/**
 * Three controllers in a metadata quorum, each on its own in-process node with its own metadata
 * dir, fake brokers recording what they are told, and a controller channel on the client node:
 * one controller is active and the others answer NotController naming it; standbys apply what
 * it commits; when its node dies another takes over with a higher controller epoch, the
 * metadata intact, and announces itself to the brokers; requests sent during the election wait
 * and are served; the quorum's state survives a restart of every controller. With a small
 * snapshot threshold every controller snapshots its state and compacts its log; a restart loads
 * the snapshot, and a controller that was down while the others compacted gets the leader's
 * snapshot. Voters added and removed while it runs (KIP-853): a controller outside the set
 * observes and is added once caught up, the active controller removes itself and another takes
 * over, refusals as Kafka's, the set kept across restarts and snapshots, and the channel finds
 * an active controller it was not started with.
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

  voterChange(type: 'AddRaftVoter' | 'RemoveRaftVoter', voterId: number): Promise<Reply<'RaftVoterChangeResponse'>> {
    return this.ask<'RaftVoterChangeResponse'>({ type, voterId });
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
    // controller 1 stands first, but on a loaded machine another can win the first election
    const active = await q.active();
    const [s1, s2] = [1, 2, 3].filter((x) => x !== active) as [number, number];
    const standby = { node: `c${s1}`, path: CONTROLLER_PATH };
    const r = await q.ask<'NotController'>({ type: 'Metadata' }, standby);
    expect(r).to.deep.include({ type: 'NotController', errorCode: ErrorCode.NOT_CONTROLLER, leaderId: active, leaderNode: `c${active}` });

    // through the channel, from any node, requests reach the active controller
    expect((await q.ask<'BrokerRegistrationResponse'>({ type: 'BrokerRegistration', brokerId: 1, node: 'node-1', incarnationId: 'i1' })).errorCode).to.equal(0);
    const created = await q.ask<'CreateTopicsResponse'>({ type: 'CreateTopics', topics: [{ name: 't', numPartitions: 2, replicationFactor: 1 }] });
    expect(created.topics[0]!.errorCode).to.equal(0);
    const leaderIndex = (await q.describe(active)).appliedIndex;
    await checkFor(async () => (await q.describe(s1)).appliedIndex === leaderIndex && (await q.describe(s2)).appliedIndex === leaderIndex);
    const d = await q.describe(active);
    expect(d.quorum!.voters.map((v) => v.logEndIndex)).to.deep.equal([leaderIndex, leaderIndex, leaderIndex]);
    expect(d.quorum!.commitIndex).to.equal(leaderIndex);
    // through the channel, DescribeQuorum is the active controller's view
    const viaChannel = await q.ask<'DescribeQuorumResponse'>({ type: 'DescribeQuorum' });
    expect(viaChannel).to.deep.include({ active: true, appliedIndex: leaderIndex });
    expect(viaChannel.quorum).to.deep.include({ voterId: active, role: 'Leader', leaderId: active });
  });

  it('when the active controller dies another takes over: the metadata is intact, the epoch one higher, the brokers told', async () => {
    const first = await q.active();
    expect((await q.ask<'BrokerRegistrationResponse'>({ type: 'BrokerRegistration', brokerId: 1, node: 'node-1', incarnationId: 'i1' })).errorCode).to.equal(0);
    await q.ask<'CreateTopicsResponse'>({ type: 'CreateTopics', topics: [{ name: 'kept', numPartitions: 3, replicationFactor: 1 }] });
    const before = (await q.ask<'MetadataResponse'>({ type: 'Metadata' })).metadata;
    q.inbox.length = 0;

    await q.kill(first);
    // asked during the election, served by the new controller
    const during = q.ask<'CreateTopicsResponse'>({ type: 'CreateTopics', topics: [{ name: 'after', numPartitions: 1, replicationFactor: 1 }] });
    const next = await q.active();
    expect(next).to.not.equal(first);
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

  describe('voters added and removed (KIP-853)', () => {
    const voterIds = async (id: number) => (await q.describe(id)).quorum!.voters.map((v) => v.id);
    const registerBroker = async () => {
      expect((await q.ask<'BrokerRegistrationResponse'>({ type: 'BrokerRegistration', brokerId: 1, node: 'node-1', incarnationId: 'i1' })).errorCode).to.equal(0);
    };
    const caughtUp = async (id: number, active: number) => {
      await checkFor(async () => (await q.describe(id)).appliedIndex === (await q.describe(active)).appliedIndex, 10_000, 20);
    };
    const create = async (name: string) => {
      const r = await q.ask<'CreateTopicsResponse'>({ type: 'CreateTopics', topics: [{ name, assignments: [[1]] }] });
      expect(r.topics[0]!.errorCode, r.topics[0]!.errorMessage ?? '').to.equal(0);
    };

    it('a controller outside the set observes, is refused until it runs, then added; the new set is committed and counts', async () => {
      const active = await q.active();
      await registerBroker();
      await create('t1');
      expect((await q.voterChange('AddRaftVoter', 4)).errorCode).to.equal(ErrorCode.REQUEST_TIMED_OUT);
      q.start(4);
      await caughtUp(4, active);
      const d4 = await q.describe(4);
      expect(d4).to.deep.include({ active: false });
      expect(d4.quorum).to.deep.include({ role: 'Observer', leaderId: active });
      // it answers as any standby: NotController naming the active one
      const r = await q.ask<'NotController'>({ type: 'Metadata' }, { node: 'c4', path: CONTROLLER_PATH });
      expect(r).to.deep.include({ type: 'NotController', leaderId: active, leaderNode: `c${active}` });
      await checkFor(async () => (await q.describe(active)).quorum!.observers.some((o) => o.id === 4));

      expect(await q.voterChange('AddRaftVoter', 4)).to.deep.equal({ type: 'RaftVoterChangeResponse', errorCode: ErrorCode.NONE });
      expect(await voterIds(active)).to.deep.equal([1, 2, 3, 4]);
      await checkFor(async () => (await q.describe(4)).quorum!.role === 'Follower');
      expect((await q.voterChange('AddRaftVoter', 4)).errorCode).to.equal(ErrorCode.DUPLICATE_VOTER);
      expect((await q.voterChange('RemoveRaftVoter', 9)).errorCode).to.equal(ErrorCode.VOTER_NOT_FOUND);
      // four voters: two down leave no majority; with three, changes commit again
      const [a, b] = [1, 2, 3].filter((x) => x !== active);
      await q.kill(a!);
      await create('t2');
      await q.kill(b!);
      const stuck = await q.client.ask<ControllerReply>(q.channel, { type: 'CreateTopics', topics: [{ name: 'never', assignments: [[1]] }] }, { timeoutMs: 30_000 });
      expect(isFailure(stuck) || stuck.type === 'NotController' || (stuck.type === 'CreateTopicsResponse' && stuck.topics[0]!.errorCode !== 0), JSON.stringify(stuck)).to.equal(true);
      q.start(a!);
      await q.active();
      await create('t3');
    });

    it('the active controller removes itself: answered once committed, it stands down and another takes over; the set survives restarts', async () => {
      const first = await q.active();
      await registerBroker();
      await create('before');
      expect(await q.voterChange('RemoveRaftVoter', first)).to.deep.equal({ type: 'RaftVoterChangeResponse', errorCode: ErrorCode.NONE });
      const second = await q.active();
      expect(second).to.not.equal(first);
      expect(await voterIds(second)).to.deep.equal([1, 2, 3].filter((x) => x !== first));
      await create('after');
      await caughtUp(first, second);
      const d = await q.describe(first);
      expect(d.active).to.equal(false);
      expect(d.quorum!.role).to.equal('Observer');
      await checkFor(async () => (await q.describe(second)).quorum!.observers.some((o) => o.id === first));
      // the two left are a quorum of two: both needed
      const before = (await q.ask<'MetadataResponse'>({ type: 'Metadata' })).metadata;
      for (const id of [1, 2, 3]) await q.kill(id);
      for (const id of [1, 2, 3]) q.start(id);
      const third = await q.active();
      expect(third).to.not.equal(first);
      expect(await voterIds(third)).to.deep.equal([1, 2, 3].filter((x) => x !== first));
      await checkFor(async () => (await q.describe(first)).quorum!.role === 'Observer');
      const after = (await q.ask<'MetadataResponse'>({ type: 'Metadata' })).metadata;
      expect(after.topics).to.deep.equal(before.topics);
      // and it can come back
      await checkFor(async () => (await q.voterChange('AddRaftVoter', first)).errorCode === ErrorCode.NONE, 10_000, 100);
      expect(await voterIds(third)).to.deep.equal([1, 2, 3].filter((x) => x !== first).concat(first));
    });

    it('the channel reaches an active controller it was not started with (learned from a NotController)', async () => {
      const first = await q.active();
      await registerBroker();
      q.start(4);
      await caughtUp(4, first);
      await checkFor(async () => (await q.voterChange('AddRaftVoter', 4)).errorCode === ErrorCode.NONE, 10_000, 100);
      // controller 4 alone remains: the others are removed, the active one last
      for (const id of [1, 2, 3].filter((x) => x !== first)) expect((await q.voterChange('RemoveRaftVoter', id)).errorCode).to.equal(ErrorCode.NONE);
      expect((await q.voterChange('RemoveRaftVoter', first)).errorCode).to.equal(ErrorCode.NONE);
      expect(await q.active()).to.equal(4);
      // a fresh channel that knows only the topology's controllers
      const fresh = q.client.spawn(controllerChannel, { name: 'fresh-channel', args: { voters: VOTERS, retryBudgetMs: 3_000 } });
      await create('via-old');
      const r = await q.ask<'MetadataResponse'>({ type: 'Metadata' }, fresh);
      expect(r.metadata.controllerNode).to.equal('c4');
      expect(r.metadata.topics.map((t) => t.name)).to.include('via-old');
    });

    it('with snapshots: the set is in the snapshot a restart loads', async () => {
      await q.stop();
      const sdir = await fsp.mkdtemp(path.join(os.tmpdir(), 'samsa-quorum-snap-voters-'));
      q = new Quorum(sdir, { 'metadata.log.max.record.bytes.between.snapshots': 2_000 });
      try {
        for (const id of [1, 2, 3]) q.start(id);
        const first = await q.active();
        await registerBroker();
        const gone = first === 3 ? 2 : 3;
        expect((await q.voterChange('RemoveRaftVoter', gone)).errorCode).to.equal(ErrorCode.NONE);
        for (let i = 0; i < 30; i++) await create(`s-${i}`);
        await checkFor(async () => {
          const ds = await Promise.all([1, 2, 3].map((id) => q.describe(id)));
          return ds.every((d) => d.quorum!.snapshotIndex > 0);
        });
        const snap = JSON.parse((await fsp.readFile(path.join(sdir, `c${first}`, 'metadata-snapshot.json'), 'utf8')).slice(9)) as { image: { quorumVoters: { id: number }[] } };
        expect(snap.image.quorumVoters.map((v) => v.id)).to.deep.equal([1, 2, 3].filter((x) => x !== gone));
        for (const id of [1, 2, 3]) await q.kill(id);
        for (const id of [1, 2, 3]) q.start(id);
        const next = await q.active();
        expect(next).to.not.equal(gone);
        expect(await voterIds(next)).to.deep.equal([1, 2, 3].filter((x) => x !== gone));
      } finally {
        await q.stop();
        await fsp.rm(sdir, { recursive: true, force: true });
      }
    });
  });
});
