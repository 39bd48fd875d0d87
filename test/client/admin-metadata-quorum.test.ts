/**
 * admin.describeMetadataQuorum: a single controller is a quorum of one; with three controllers
 * (Raft, in-process nodes) the answer is the leader's view whichever controller the admin
 * reaches: every voter, the leader's epoch and high watermark, each voter's log end and lag; a
 * dead follower falls behind as the metadata changes; after the leader dies, another leads in a
 * later epoch; with no majority left there is no leader (-1) and the lags are unknown (-1).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Admin, MetadataQuorumInfo } from '../../src/client/admin.js';
import { SamsaError } from '../../src/client/errors.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import type { TopologyConfig } from '../../src/topology/config.js';
import { startCluster, type ClusterHandle } from '../../src/topology/start-cluster.js';
import { checkFor } from '../helpers/check-for.js';
import { TestCluster } from '../helpers/cluster.js';

function topology(): TopologyConfig {
  return {
    clusterId: 'quorum-test',
    logLevel: 'silent',
    nodes: ['main', 'c1', 'c2', 'c3', 'b1'].map((id) => ({ id, kind: 'inproc' as const })),
    controller: {
      quorum: [1, 2, 3].map((id) => ({ id, node: `c${id}`, metadataDir: `c${id}` })),
      config: { 'controller.quorum.election.timeout.ms': 400 },
    },
    brokers: [{ id: 1, node: 'b1', logDir: 'b1', config: { 'broker.heartbeat.interval.ms': 300 } }],
  };
}

/** The description once every voter has caught up with the leader (lag 0 everywhere). */
async function caughtUp(admin: Admin, atLeast = 0): Promise<MetadataQuorumInfo> {
  return checkFor(async () => {
    const q = await admin.describeMetadataQuorum();
    return q.leaderId > 0 && q.highWatermark > atLeast && q.voters.every((v) => v.lag === 0) ? q : null;
  }, 15_000, 50);
}

describe('client/admin describeMetadataQuorum: a single controller', function () {
  this.timeout(60_000);
  let c: TestCluster;

  before(async () => {
    c = await TestCluster.start({ brokers: 1 });
  });
  after(async () => {
    await c?.stop();
  });

  it('is a quorum of one that leads, caught up with itself', async () => {
    const admin = c.samsa('quorum-of-one').admin();
    const unconnected = await admin.describeMetadataQuorum().then(
      () => null,
      (e: unknown) => e,
    );
    expect(unconnected).to.be.instanceOf(SamsaError).with.property('errorCode', ErrorCode.NETWORK_EXCEPTION);
    await admin.connect();
    try {
      const q = await admin.describeMetadataQuorum();
      const cluster = await admin.describeCluster();
      expect(q.clusterId).to.equal(cluster.clusterId);
      expect(q.controllerEpoch).to.equal(cluster.controllerEpoch);
      expect(q.leaderId).to.equal(1);
      expect(q.leaderEpoch).to.be.at.least(1);
      expect(q.highWatermark).to.be.greaterThan(0);
      expect(q.voters).to.deep.equal([{ id: 1, node: 'controller', directoryId: q.voters[0]!.directoryId, logEndOffset: q.voters[0]!.logEndOffset, lag: 0, lastContactMs: 0, role: 'Leader' }]);
      expect(q.voters[0]!.directoryId).to.match(/^[A-Za-z0-9_-]{22}$/);
      expect(q.observers).to.deep.equal([]);
      expect(q.voters[0]!.logEndOffset).to.be.at.least(q.highWatermark);
    } finally {
      await admin.disconnect();
    }
  });
});

describe('client/admin describeMetadataQuorum: three controllers', function () {
  this.timeout(90_000);
  let dir: string;
  let h: ClusterHandle | undefined;
  let admin: Admin;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-quorum-'));
    h = await startCluster(topology(), { baseDir: dir });
    admin = h.samsa().admin();
    await admin.connect();
    // the tests create topics: the broker must have registered (startCluster waits only for a topology's topics)
    await checkFor(async () => ((await admin.describeCluster()).brokers.some((b) => b.brokerId === 1 && !b.fenced) ? true : null), 15_000, 50);
  });
  afterEach(async () => {
    await admin?.disconnect();
    await h?.stop();
    h = undefined;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("gives the leader's view of every voter, and the high watermark grows with the metadata", async () => {
    const q = await caughtUp(admin);
    expect(q.clusterId).to.equal('quorum-test');
    expect(q.voters.map((v) => [v.id, v.node])).to.deep.equal([
      [1, 'c1'],
      [2, 'c2'],
      [3, 'c3'],
    ]);
    expect([1, 2, 3]).to.include(q.leaderId);
    expect(q.leaderEpoch).to.be.at.least(1);
    for (const v of q.voters) {
      expect(v.role).to.equal(v.id === q.leaderId ? 'Leader' : 'Follower');
      // known for every voter: the answer is the leader's, even when the admin's channel asked a standby first
      expect(v.logEndOffset).to.be.at.least(q.highWatermark);
      expect(v.lastContactMs).to.be.within(0, 5_000);
    }
    expect(q.voters.find((v) => v.id === q.leaderId)!.lastContactMs).to.equal(0);
    const cluster = await admin.describeCluster();
    expect(cluster.controllerNode).to.equal(`c${q.leaderId}`);
    expect(q.controllerEpoch).to.equal(cluster.controllerEpoch);

    await admin.createTopics({ topics: [{ topic: 'grow', numPartitions: 2, replicationFactor: 1 }] });
    const after = await caughtUp(admin, q.highWatermark);
    expect(after.leaderId).to.equal(q.leaderId);
    expect(after.leaderEpoch).to.equal(q.leaderEpoch);
    for (const v of after.voters) expect(v.logEndOffset).to.be.at.least(after.highWatermark);
  });

  it('a dead follower falls behind as the metadata changes; with no majority left there is no leader', async () => {
    const q = await caughtUp(admin);
    const [dead, other] = q.voters.filter((v) => v.id !== q.leaderId);
    await h!.killNode(dead!.node);
    await admin.createTopics({ topics: [{ topic: 'without-one', numPartitions: 1, replicationFactor: 1 }] });
    const behind = await checkFor(async () => {
      const r = await admin.describeMetadataQuorum();
      const d = r.voters.find((v) => v.id === dead!.id)!;
      return d.lag > 0 && d.lastContactMs > 1_000 ? r : null;
    }, 15_000, 100);
    expect(behind.leaderId).to.equal(q.leaderId);
    const d = behind.voters.find((v) => v.id === dead!.id)!;
    const leader = behind.voters.find((v) => v.id === q.leaderId)!;
    expect(d.lag).to.equal(leader.logEndOffset - d.logEndOffset);
    expect(d.role).to.equal('Follower');
    // the live follower keeps up: a majority of two commits
    expect(behind.voters.find((v) => v.id === other!.id)!.lag).to.equal(0);
    expect(behind.highWatermark).to.be.greaterThan(q.highWatermark);

    // the second follower dies too: the leader steps down (check-quorum) and no one can lead
    await h!.killNode(other!.node);
    const none = await checkFor(async () => {
      const r = await admin.describeMetadataQuorum();
      return r.leaderId === -1 ? r : null;
    }, 15_000, 100);
    expect(none.leaderEpoch).to.be.at.least(q.leaderEpoch);
    for (const v of none.voters) expect(v).to.include({ lag: -1, lastContactMs: -1, logEndOffset: -1 });
    expect(none.voters.map((v) => v.id)).to.deep.equal([1, 2, 3]);
  });

  it('after the leader dies another leads in a later epoch, and the dead one shows as a follower behind it', async () => {
    const q = await caughtUp(admin);
    await h!.killNode(`c${q.leaderId}`);
    const next = await checkFor(async () => {
      const r = await admin.describeMetadataQuorum().catch((e: unknown) => {
        // while the admin learns where the new active controller is
        if (e instanceof SamsaError) return null;
        throw e;
      });
      // a new leader knows the high watermark once an entry of its own term is committed (-1 until then)
      return r && r.leaderId > 0 && r.leaderId !== q.leaderId && r.highWatermark >= 0 ? r : null;
    }, 20_000, 100);
    expect(next.leaderEpoch).to.be.greaterThan(q.leaderEpoch);
    // its own entry of the term is committed on top of everything the old leader committed
    expect(next.highWatermark).to.be.greaterThan(q.highWatermark);
    const old = next.voters.find((v) => v.id === q.leaderId)!;
    expect(old.role).to.equal('Follower');
    // the new leader's empty entry of its term never reaches the dead one
    expect(old.lag).to.be.greaterThan(0);
    const live = next.voters.filter((v) => v.id !== q.leaderId);
    expect(live.map((v) => v.role).sort()).to.deep.equal(['Follower', 'Leader']);
    await checkFor(async () => (await admin.describeMetadataQuorum()).voters.filter((v) => v.id !== q.leaderId).every((v) => v.lag === 0), 10_000, 50);
  });
});
