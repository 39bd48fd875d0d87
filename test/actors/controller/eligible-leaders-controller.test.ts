/**
 * Eligible leader replicas (KIP-966) through the controller actor (the harness drives the real
 * controller with fake brokers and a FakeClock): a broker registering again after an unclean
 * shutdown (its previous broker epoch not the controller's) leaves every ISR and ELR and is not
 * elected from the ELR, while one back from a clean shutdown stays in the ELR and is elected
 * cleanly; a change of min.insync.replicas (topic, cluster default) writes ClearElr for what it
 * applies to; eligible.leader.replicas.version to 0 clears every ELR and LastKnownElr, and back at
 * 1 they start empty; ELR and LastKnownElr replayed from the metadata log and loaded from a
 * snapshot after a restart; the leader of a partition whose ISR is [it] fenced: leaderless, an
 * empty ISR, the last leader in LastKnownElr, and the first ELR member back unfenced elected;
 * min.insync.replicas cluster-wide while ELR is on (Kafka's ConfigurationControlManager): a new
 * cluster starts with the cluster-wide one, raising the feature to 1 writes it (from the
 * controller's) and takes every broker's own away in the same batch, and while it is on a
 * broker's own is refused and so is deleting the cluster-wide one; a ClearElr gives the
 * partitions it empties a new partition epoch, which their replicas are told.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { METADATA_LOG_FILE } from '../../../actors/controller/metadata-log.js';
import { METADATA_SNAPSHOT_FILE } from '../../../actors/controller/metadata-snapshot.js';
import type { MetadataRecord } from '../../../actors/controller/metadata-state.js';
import { NO_LEADER, type PartitionState } from '../../../src/protocol/cluster.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { checkFor } from '../../helpers/check-for.js';
import { ControllerHarness, type Reply } from './harness.js';

const MIN_ISR_2 = { 'min.insync.replicas': 2 };

const view = (p: PartitionState) => ({ leader: p.leader, isr: p.isr, elr: p.elr ?? [], lastKnownElr: p.lastKnownElr ?? [] });

/** A broker registering with a new incarnation; `previousBrokerEpoch` as its registration carries it (absent: none). */
async function registerAgain(h: ControllerHarness, id: number, incarnationId: string, previousBrokerEpoch?: number): Promise<Reply<'BrokerRegistrationResponse'>> {
  const r = await h.ask<'BrokerRegistrationResponse'>({
    type: 'BrokerRegistration',
    brokerId: id,
    node: `node-${id}`,
    incarnationId,
    rack: null,
    ...(previousBrokerEpoch === undefined ? {} : { previousBrokerEpoch }),
  });
  expect(r.errorCode, r.errorMessage).to.equal(0);
  h.epochs.set(id, r.brokerEpoch);
  return r;
}

/** Every batch of the metadata log in `dir`, in order (a compacted log's start line holds none). */
function loggedBatches(dir: string): MetadataRecord[][] {
  const text = fs.readFileSync(path.join(dir, METADATA_LOG_FILE), 'utf8');
  return text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => {
      const json: unknown = JSON.parse(line.slice(line.indexOf(' ') + 1));
      if (Array.isArray(json)) return json as MetadataRecord[];
      return ((json as { records?: MetadataRecord[] }).records ?? []) as MetadataRecord[];
    });
}

/** Every record of the metadata log in `dir`, in order. */
function loggedRecords(dir: string): MetadataRecord[] {
  return loggedBatches(dir).flat();
}

/** The last batch of the log that sets eligible.leader.replicas.version to `level`. */
function elrBatch(dir: string, level: number): MetadataRecord[] {
  const found = loggedBatches(dir).filter((b) => b.some((r) => r.type === 'FeatureLevel' && r.name === 'eligible.leader.replicas.version' && r.level === level));
  expect(found, `a batch setting eligible.leader.replicas.version=${level}`).to.not.have.length(0);
  return found.at(-1)!;
}

const clearElrs = (dir: string) => loggedRecords(dir).filter((r): r is Extract<MetadataRecord, { type: 'ClearElr' }> => r.type === 'ClearElr');

describe('actors/controller: eligible leader replicas through the controller', () => {
  let h: ControllerHarness;
  let dir: string | null = null;

  afterEach(async () => {
    await h?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    dir = null;
  });

  const tempDir = () => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-elr-')));

  /**
   * Brokers 1-4; p [1,2,3] with ISR [1] and ELR [2,3] (led by 1); q [4,2,3] leaderless with an
   * empty ISR, ELR [2,3,4] and LastKnownElr [4]; brokers 2, 3 and 4 fenced.
   */
  async function elrAndLastKnownElr(opts: Parameters<typeof ControllerHarness.start>[0] = {}): Promise<void> {
    h = await ControllerHarness.start({ elr: 1, brokers: [1, 2, 3, 4], ...opts });
    await h.createTopics([
      { name: 'p', assignments: [[1, 2, 3]], config: MIN_ISR_2 },
      { name: 'q', assignments: [[4, 2, 3]], config: MIN_ISR_2 },
    ]);
    await h.alterIsr('p', 0, [1]);
    await h.alterIsr('q', 0, [4]);
    await h.advanceKeeping([1, 4], 10_000); // 2 and 3 fenced: in no ISR, they stay in the ELRs
    await h.advanceKeeping([1], 10_000); // 4 fenced: q has no acceptable leader
    expect(view(await h.partition('p', 0))).to.deep.equal({ leader: 1, isr: [1], elr: [2, 3], lastKnownElr: [] });
    expect(view(await h.partition('q', 0))).to.deep.equal({ leader: NO_LEADER, isr: [], elr: [2, 3, 4], lastKnownElr: [4] });
  }

  describe('a broker registering again (previous broker epoch)', () => {
    it('after an unclean shutdown it leaves the ELR and is not elected from it; after a clean one it stays in the ELR and is elected cleanly', async () => {
      h = await ControllerHarness.start({ elr: 1, brokers: [1, 2, 3] });
      await h.createTopics([{ name: 't', assignments: [[1, 2, 3]], config: MIN_ISR_2 }]);
      await h.advanceKeeping([1, 2], 10_000); // 3 fenced: the ISR [1,2] is at min ISR, no ELR
      expect(view(await h.partition('t', 0))).to.deep.equal({ leader: 1, isr: [1, 2], elr: [], lastKnownElr: [] });
      await h.advanceKeeping([1], 10_000); // 2 fenced: below min ISR, it joins the ELR
      expect(view(await h.partition('t', 0))).to.deep.equal({ leader: 1, isr: [1], elr: [2], lastKnownElr: [] });
      await h.advanceKeeping([], 10_000); // 1 fenced: no leader, the ISR empty
      const leaderless = await h.partition('t', 0);
      expect(view(leaderless)).to.deep.equal({ leader: NO_LEADER, isr: [], elr: [1, 2], lastKnownElr: [1] });

      // 1 (the last leader) comes back from an unclean shutdown: no previous epoch in its
      // registration; it leaves the ELR and, the ELR not empty, is not elected
      await registerAgain(h, 1, 'inc-1-crashed');
      expect((await h.metadata()).brokers.find((b) => b.brokerId === 1)!.fenced).to.equal(false);
      expect(view(await h.partition('t', 0))).to.deep.equal({ leader: NO_LEADER, isr: [], elr: [2], lastKnownElr: [1] });

      // 2 comes back from a clean shutdown: the epoch the controller had for it; it is elected from the ELR
      h.clearInboxes();
      const epoch2 = h.epochs.get(2)!;
      await registerAgain(h, 2, 'inc-2-clean', epoch2);
      const led = await h.partition('t', 0);
      expect(view(led)).to.deep.equal({ leader: 2, isr: [2], elr: [], lastKnownElr: [] });
      expect(led.leaderEpoch).to.equal(leaderless.leaderEpoch + 1);
      await h.settle();
      expect(h.leaderAndIsr(2).find((p) => p.topic === 't')).to.deep.include({ leader: 2, isr: [2] });
    });

    it('a live broker restarting: with its epoch it stays in the ELRs; with a stale one it leaves every ISR and ELR', async () => {
      h = await ControllerHarness.start({ elr: 1, brokers: [1, 2, 3] });
      await h.createTopics([
        { name: 'x', assignments: [[1, 2, 3]], config: MIN_ISR_2 },
        { name: 'y', assignments: [[2, 1, 3]], config: MIN_ISR_2 },
      ]);
      await h.alterIsr('x', 0, [1]);
      expect(view(await h.partition('x', 0))).to.deep.equal({ leader: 1, isr: [1], elr: [2, 3], lastKnownElr: [] });

      // 3 restarts after a clean shutdown: bounced (it leaves y's ISR, still at min ISR), still in x's ELR
      await registerAgain(h, 3, 'inc-3-b', h.epochs.get(3)!);
      expect(view(await h.partition('x', 0))).to.deep.equal({ leader: 1, isr: [1], elr: [2, 3], lastKnownElr: [] });
      expect(view(await h.partition('y', 0))).to.deep.equal({ leader: 2, isr: [2, 1], elr: [], lastKnownElr: [] });

      // 2 restarts after an unclean shutdown (its previous epoch is not the controller's): it
      // leaves y's ISR and leadership, and x's ELR, and joins no ELR
      await registerAgain(h, 2, 'inc-2-b', h.epochs.get(2)! - 1);
      expect(view(await h.partition('x', 0))).to.deep.equal({ leader: 1, isr: [1], elr: [3], lastKnownElr: [] });
      expect(view(await h.partition('y', 0))).to.deep.equal({ leader: 1, isr: [1], elr: [], lastKnownElr: [] });
    });
  });

  describe('min.insync.replicas changed', () => {
    it('for a topic writes ClearElr for that topic only; for the cluster default, for every topic', async () => {
      h = await ControllerHarness.start({ elr: 1, brokers: [1, 2, 3], args: { metadataDir: tempDir() } });
      const cluster = (minIsr: string) => h.ask<'AlterBrokerConfigsResponse'>({ type: 'AlterBrokerConfigs', resources: [{ resource: '', set: { 'min.insync.replicas': minIsr } }] });
      const topic = (name: string, set: Record<string, string | number>) => h.ask<'AlterTopicConfigsResponse'>({ type: 'AlterTopicConfigs', topics: [{ name, set }] });
      expect((await cluster('2')).resources[0]!.errorCode).to.equal(0);
      await h.createTopics([
        { name: 'a', assignments: [[1, 2, 3]], config: MIN_ISR_2 },
        { name: 'b', assignments: [[1, 2, 3]], config: MIN_ISR_2 },
        { name: 'c', assignments: [[1, 2, 3]] }, // the cluster default's 2
      ]);
      for (const t of ['a', 'b', 'c']) await h.alterIsr(t, 0, [1]);
      for (const t of ['a', 'b', 'c']) expect(view(await h.partition(t, 0)), t).to.deep.equal({ leader: 1, isr: [1], elr: [2, 3], lastKnownElr: [] });
      const before = clearElrs(dir!).length;

      // another config of a, and a's min ISR set to what it is: nothing cleared
      expect((await topic('a', { 'retention.ms': 1000 })).topics[0]!.errorCode).to.equal(0);
      expect((await topic('a', { 'min.insync.replicas': 2 })).topics[0]!.errorCode).to.equal(0);
      expect(clearElrs(dir!)).to.have.length(before);
      expect(view(await h.partition('a', 0)).elr).to.deep.equal([2, 3]);

      // a's min ISR changed: a's ELR cleared, not b's or c's
      h.clearInboxes();
      expect((await topic('a', { 'min.insync.replicas': 3 })).topics[0]!.errorCode).to.equal(0);
      expect(clearElrs(dir!).slice(before)).to.deep.equal([{ type: 'ClearElr', topic: 'a' }]);
      expect(view(await h.partition('a', 0))).to.deep.equal({ leader: 1, isr: [1], elr: [], lastKnownElr: [] });
      for (const t of ['b', 'c']) expect(view(await h.partition(t, 0)).elr, t).to.deep.equal([2, 3]);
      await h.settle();
      const told = h.received(2, 'UpdateMetadataRequest').at(-1)!.metadata.topics;
      expect(told.find((t) => t.name === 'a')!.partitions[0]).to.not.have.property('elr');
      expect(told.find((t) => t.name === 'b')!.partitions[0]!.elr).to.deep.equal([2, 3]);

      // the cluster-wide default changed: every topic's ELR cleared (b has its own min ISR: Kafka clears it too)
      expect((await cluster('3')).resources[0]!.errorCode).to.equal(0);
      expect(clearElrs(dir!).slice(before)).to.deep.equal([
        { type: 'ClearElr', topic: 'a' },
        { type: 'ClearElr', topic: '' },
      ]);
      for (const t of ['a', 'b', 'c']) expect(view(await h.partition(t, 0)), t).to.deep.equal({ leader: 1, isr: [1], elr: [], lastKnownElr: [] });
    });
  });

  describe('eligible.leader.replicas.version', () => {
    it('to 0 clears every ELR and LastKnownElr (and tells the leaders); back at 1 they start empty', async () => {
      await elrAndLastKnownElr();
      await h.settle();
      h.clearInboxes();
      await h.setElr(0);
      const p = await h.partition('p', 0);
      const q = await h.partition('q', 0);
      expect(p).to.not.have.any.keys('elr', 'lastKnownElr');
      expect(q).to.not.have.any.keys('elr', 'lastKnownElr');
      expect(view(p)).to.deep.equal({ leader: 1, isr: [1], elr: [], lastKnownElr: [] });
      expect(view(q)).to.deep.equal({ leader: NO_LEADER, isr: [], elr: [], lastKnownElr: [] });
      await h.settle();
      const resent = h.leaderAndIsr(1).find((x) => x.topic === 'p');
      expect(resent, 'the leader is told again').to.deep.include({ leader: 1, isr: [1] });
      expect(resent).to.not.have.property('eligibleLeaderReplicasEnabled');
      // once, though the ClearElr emptied p's ELR (a new partition epoch) and the feature changed
      // (broker 1, the only live one, is a replica of p alone)
      expect(h.received(1, 'LeaderAndIsrRequest'), 'one request to the leader').to.have.length(1);
      expect(h.leaderAndIsr(1).map((x) => `${x.topic}-${x.partition}`)).to.deep.equal(['p-0']);

      // at 0, the ISR shrinks with no ELR
      await h.heartbeatAll([2]); // 2 is unfenced
      await h.alterIsr('p', 0, [1, 2]);
      await h.alterIsr('p', 0, [1]);
      expect(await h.partition('p', 0)).to.not.have.any.keys('elr', 'lastKnownElr');

      await h.setElr(1);
      expect(view(await h.partition('p', 0)), 'nothing from before').to.deep.equal({ leader: 1, isr: [1], elr: [], lastKnownElr: [] });
      expect(view(await h.partition('q', 0))).to.deep.equal({ leader: NO_LEADER, isr: [], elr: [], lastKnownElr: [] });
      // 3 and 4 (in q's ELR and LastKnownElr before) come back: nothing to elect q from
      await h.heartbeatAll([3, 4]);
      expect(view(await h.partition('q', 0))).to.deep.equal({ leader: NO_LEADER, isr: [], elr: [], lastKnownElr: [] });
      // the next shrink below min ISR fills the ELR afresh
      await h.alterIsr('p', 0, [1, 2]);
      await h.alterIsr('p', 0, [1]);
      expect(view(await h.partition('p', 0))).to.deep.equal({ leader: 1, isr: [1], elr: [2], lastKnownElr: [] });
    });
  });

  describe('a controller restart', () => {
    it('replays ELR and LastKnownElr from the metadata log, and elects from them', async () => {
      await elrAndLastKnownElr({ args: { metadataDir: tempDir() } });
      const before = await h.metadata();
      await h.restartController();
      const after = await h.metadata();
      expect(after.topics).to.deep.equal(before.topics);
      expect(after.controllerEpoch).to.equal(before.controllerEpoch + 1);
      // 3, in q's ELR, is back: elected cleanly
      await h.heartbeatAll([3]);
      expect(view(await h.partition('q', 0))).to.deep.equal({ leader: 3, isr: [3], elr: [2, 4], lastKnownElr: [] });
    });

    it('loads ELR and LastKnownElr from a snapshot, and elects from them', async () => {
      // a snapshot after every batch: the log holds nothing the snapshot does not
      await elrAndLastKnownElr({ args: { metadataDir: tempDir(), config: { 'metadata.log.max.record.bytes.between.snapshots': 1 } } });
      const describe = () => h.ask<'DescribeQuorumResponse'>({ type: 'DescribeQuorum', local: true });
      const appliedIndex = (await describe()).appliedIndex;
      await checkFor(async () => (await describe()).quorum!.snapshotIndex === appliedIndex);
      expect(fs.existsSync(path.join(dir!, METADATA_SNAPSHOT_FILE))).to.equal(true);
      expect(loggedRecords(dir!).filter((r) => r.type === 'PartitionChange'), 'compacted into the snapshot').to.deep.equal([]);
      const before = await h.metadata();

      await h.restartController();
      expect((await describe()).quorum!.snapshotIndex).to.be.at.least(appliedIndex);
      const after = await h.metadata();
      expect(after.topics).to.deep.equal(before.topics);
      await h.heartbeatAll([2]);
      expect(view(await h.partition('q', 0))).to.deep.equal({ leader: 2, isr: [2], elr: [3, 4], lastKnownElr: [] });
    });
  });

  describe('the leader fenced while the ISR is [it]', () => {
    it('leaves the partition leaderless with an empty ISR and the last leader in LastKnownElr; the first ELR member back is elected, the ISR it alone', async () => {
      h = await ControllerHarness.start({ elr: 1, brokers: [1, 2, 3] });
      await h.createTopics([{ name: 't', assignments: [[1, 2, 3]], config: MIN_ISR_2 }]);
      await h.alterIsr('t', 0, [1]); // 2 and 3 fell behind: out into the ELR
      const shrunk = await h.partition('t', 0);
      expect(view(shrunk)).to.deep.equal({ leader: 1, isr: [1], elr: [2, 3], lastKnownElr: [] });
      await h.advanceKeeping([1], 10_000); // 2 and 3 fenced: in no ISR, nothing changes
      expect(await h.partition('t', 0)).to.deep.equal(shrunk);

      await h.advanceKeeping([], 10_000); // the leader fenced
      const leaderless = await h.partition('t', 0);
      expect(view(leaderless)).to.deep.equal({ leader: NO_LEADER, isr: [], elr: [1, 2, 3], lastKnownElr: [1] });
      expect(leaderless.leaderEpoch).to.equal(shrunk.leaderEpoch + 1);

      // 3 is the first back (unfenced by its heartbeat): elected from the ELR, the ISR [3]
      h.clearInboxes();
      await h.heartbeatAll([3]);
      const led = await h.partition('t', 0);
      expect(view(led)).to.deep.equal({ leader: 3, isr: [3], elr: [1, 2], lastKnownElr: [] });
      expect(led.leaderEpoch).to.equal(leaderless.leaderEpoch + 1);
      await h.settle();
      expect(h.leaderAndIsr(3).find((p) => p.topic === 't')).to.deep.include({ leader: 3, isr: [3], elr: [1, 2] });

      // the others back: 3 keeps leading, they stay in the ELR until its leader adds them to the ISR
      await h.heartbeatAll([1, 2]);
      expect(view(await h.partition('t', 0))).to.deep.equal({ leader: 3, isr: [3], elr: [1, 2], lastKnownElr: [] });
      await h.alterIsr('t', 0, [3, 1]);
      expect(view(await h.partition('t', 0))).to.deep.equal({ leader: 3, isr: [3, 1], elr: [], lastKnownElr: [] });
    });
  });

  describe('min.insync.replicas cluster-wide while ELR is on (KIP-966)', () => {
    const alter = (resources: { resource: string; set?: Record<string, string>; delete?: string[] }[], validateOnly?: boolean) =>
      h.ask<'AlterBrokerConfigsResponse'>(validateOnly === undefined ? { type: 'AlterBrokerConfigs', resources } : { type: 'AlterBrokerConfigs', resources, validateOnly });
    const codes = (r: Reply<'AlterBrokerConfigsResponse'>) => r.resources.map((x) => [x.errorCode, x.errorMessage]);
    const brokerLevel = [ErrorCode.INVALID_CONFIG, 'Broker-level min.insync.replicas cannot be altered while ELR is enabled.'];
    const clusterRemoval = [ErrorCode.INVALID_CONFIG, 'Cluster-level min.insync.replicas cannot be removed while ELR is enabled.'];

    it("a new cluster starts with the cluster-wide one from the controller's min.insync.replicas, in the batch that sets the feature levels", async () => {
      h = await ControllerHarness.start({ brokers: [1], args: { metadataDir: tempDir(), config: { 'min.insync.replicas': 2 } } });
      expect((await h.metadata()).brokerConfigs).to.deep.equal({ '': { 'min.insync.replicas': '2' } });
      expect(elrBatch(dir!, 1)).to.deep.include({ type: 'BrokerConfig', resource: '', config: { 'min.insync.replicas': '2' } });
      // a restart (features already set) writes nothing more
      const before = loggedRecords(dir!).filter((r) => r.type === 'BrokerConfig').length;
      await h.restartController();
      expect(loggedRecords(dir!).filter((r) => r.type === 'BrokerConfig')).to.have.length(before);
    });

    it("raised to 1: the cluster-wide one from the controller's when none is set, every broker's own taken away, in the feature's batch", async () => {
      h = await ControllerHarness.start({ elr: 0, brokers: [1, 2], args: { metadataDir: tempDir(), config: { 'min.insync.replicas': 2 } } });
      // at 0 anything goes: the cluster-wide one deleted, brokers' own set
      expect(codes(await alter([{ resource: '', delete: ['min.insync.replicas'], set: { 'log.retention.ms': '5000' } }, { resource: '1', set: { 'min.insync.replicas': '3' } }, { resource: '2', set: { 'min.insync.replicas': '1', 'compression.type': 'lz4' } }]))).to.deep.equal([
        [0, null],
        [0, null],
        [0, null],
      ]);
      expect((await h.metadata()).brokerConfigs).to.deep.equal({ '': { 'log.retention.ms': '5000' }, '1': { 'min.insync.replicas': '3' }, '2': { 'min.insync.replicas': '1', 'compression.type': 'lz4' } });

      // validateOnly changes nothing
      const dry = await h.ask<'UpdateFeaturesResponse'>({ type: 'UpdateFeatures', updates: [{ feature: 'eligible.leader.replicas.version', level: 1, upgradeType: 1 }], validateOnly: true });
      expect(dry.errorCode).to.equal(0);
      expect(Object.keys((await h.metadata()).brokerConfigs ?? {})).to.have.length(3);

      await h.setElr(1);
      expect((await h.metadata()).brokerConfigs).to.deep.equal({ '': { 'log.retention.ms': '5000', 'min.insync.replicas': '2' }, '2': { 'compression.type': 'lz4' } });
      const batch = elrBatch(dir!, 1);
      expect(batch.filter((r) => r.type !== 'FeatureLevel')).to.deep.equal([
        { type: 'BrokerConfig', resource: '', config: { 'log.retention.ms': '5000', 'min.insync.replicas': '2' } },
        { type: 'BrokerConfig', resource: '1', config: {} },
        { type: 'BrokerConfig', resource: '2', config: { 'compression.type': 'lz4' } },
      ]);
      await h.settle();
      expect(h.received(1, 'UpdateMetadataRequest').at(-1)!.metadata.brokerConfigs).to.deep.equal({ '': { 'log.retention.ms': '5000', 'min.insync.replicas': '2' }, '2': { 'compression.type': 'lz4' } });

      // a cluster-wide one already set stays as it is
      await h.setElr(0);
      expect(codes(await alter([{ resource: '', set: { 'min.insync.replicas': '3' } }]))).to.deep.equal([[0, null]]);
      await h.setElr(1);
      expect((await h.metadata()).brokerConfigs?.['']).to.deep.equal({ 'log.retention.ms': '5000', 'min.insync.replicas': '3' });
      expect(elrBatch(dir!, 1).filter((r) => r.type === 'BrokerConfig')).to.deep.equal([]);
    });

    it("while on: a broker's own set or deleted is refused, and so is deleting the cluster-wide one; setting it goes through; at 0 both are taken", async () => {
      h = await ControllerHarness.start({ brokers: [1, 2] });
      const initial = (await h.metadata()).brokerConfigs;
      expect(initial).to.deep.equal({ '': { 'min.insync.replicas': '1' } });
      expect(codes(await alter([{ resource: '1', set: { 'min.insync.replicas': '2' } }]))).to.deep.equal([brokerLevel]);
      expect(codes(await alter([{ resource: '1', set: { 'min.insync.replicas': '2' } }], true)), 'validateOnly too').to.deep.equal([brokerLevel]);
      expect(codes(await alter([{ resource: '2', delete: ['min.insync.replicas'] }])), 'even one it does not have').to.deep.equal([brokerLevel]);
      expect(codes(await alter([{ resource: '', delete: ['min.insync.replicas'] }]))).to.deep.equal([clusterRemoval]);
      // Kafka checks it before the value
      expect(codes(await alter([{ resource: '1', set: { 'min.insync.replicas': 'x' } }]))).to.deep.equal([brokerLevel]);
      expect((await h.metadata()).brokerConfigs).to.deep.equal(initial);
      // each resource on its own: the others go through
      expect(codes(await alter([{ resource: '1', set: { 'min.insync.replicas': '2', 'log.retention.ms': '1' } }, { resource: '2', set: { 'log.retention.ms': '7' } }, { resource: '', set: { 'min.insync.replicas': '2' } }]))).to.deep.equal([
        brokerLevel,
        [0, null],
        [0, null],
      ]);
      expect((await h.metadata()).brokerConfigs).to.deep.equal({ '': { 'min.insync.replicas': '2' }, '2': { 'log.retention.ms': '7' } });

      await h.setElr(0);
      expect(codes(await alter([{ resource: '1', set: { 'min.insync.replicas': '2' } }, { resource: '', delete: ['min.insync.replicas'] }]))).to.deep.equal([
        [0, null],
        [0, null],
      ]);
      expect((await h.metadata()).brokerConfigs).to.deep.equal({ '1': { 'min.insync.replicas': '2' }, '2': { 'log.retention.ms': '7' } });
    });

    it('a ClearElr gives the partitions it empties a new partition epoch; their replicas are told, and the leader\'s AlterPartition must carry it', async () => {
      h = await ControllerHarness.start({ brokers: [1, 2, 3] });
      await h.createTopics([
        { name: 'a', assignments: [[1, 2, 3]], config: MIN_ISR_2 },
        { name: 'b', assignments: [[2, 3, 1]], config: MIN_ISR_2 },
        { name: 'full', assignments: [[1, 2, 3]] },
      ]);
      await h.alterIsr('a', 0, [1]);
      await h.alterIsr('b', 0, [2]);
      const a = await h.partition('a', 0);
      const full = await h.partition('full', 0);
      expect(view(a).elr).to.deep.equal([2, 3]);
      await h.settle();
      h.clearInboxes();

      // the cluster-wide default changed: every ELR cleared, each partition emptied at a new epoch
      expect(codes(await alter([{ resource: '', set: { 'min.insync.replicas': '3' } }]))).to.deep.equal([[0, null]]);
      const cleared = await h.partition('a', 0);
      expect(view(cleared)).to.deep.equal({ leader: 1, isr: [1], elr: [], lastKnownElr: [] });
      expect(cleared.partitionEpoch).to.equal(a.partitionEpoch + 1);
      expect(cleared.leaderEpoch).to.equal(a.leaderEpoch);
      expect((await h.partition('full', 0)).partitionEpoch, 'no ELR to clear').to.equal(full.partitionEpoch);
      await h.settle();
      for (const id of [1, 2, 3]) expect(h.leaderAndIsr(id).find((x) => x.topic === 'a'), `replica ${id}`).to.deep.include({ leader: 1, isr: [1], partitionEpoch: a.partitionEpoch + 1 });
      expect(h.leaderAndIsr(2).find((x) => x.topic === 'b')).to.deep.include({ leader: 2, partitionEpoch: (await h.partition('b', 0)).partitionEpoch });
      expect(h.leaderAndIsr(1).find((x) => x.topic === 'full'), 'nothing changed for it').to.equal(undefined);

      // the leader's AlterPartition at the old epoch is refused, at the new one taken
      const stale = await h.ask<'AlterPartitionResponse'>({ type: 'AlterPartition', brokerId: 1, brokerEpoch: h.epochs.get(1)!, topic: 'a', partition: 0, leaderEpoch: a.leaderEpoch, partitionEpoch: a.partitionEpoch, newIsr: [1, 2] });
      expect(stale.errorCode).to.equal(ErrorCode.INVALID_UPDATE_VERSION);
      await h.alterIsr('a', 0, [1, 2]);
      expect((await h.partition('a', 0)).partitionEpoch).to.equal(a.partitionEpoch + 2);

      // a topic's own min ISR changed (AlterTopicConfigs): its replicas told the new epoch too
      await h.alterIsr('a', 0, [1]);
      const shrunk = await h.partition('a', 0);
      expect(view(shrunk).elr).to.deep.equal([2]);
      await h.settle();
      h.clearInboxes();
      const r = await h.ask<'AlterTopicConfigsResponse'>({ type: 'AlterTopicConfigs', topics: [{ name: 'a', set: { 'min.insync.replicas': 1 } }] });
      expect(r.topics[0]!.errorCode).to.equal(0);
      expect((await h.partition('a', 0)).partitionEpoch).to.equal(shrunk.partitionEpoch + 1);
      await h.settle();
      expect(h.leaderAndIsr(1).find((x) => x.topic === 'a')).to.deep.include({ partitionEpoch: shrunk.partitionEpoch + 1 });
    });
  });
});
