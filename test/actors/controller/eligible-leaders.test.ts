/**
 * Eligible leader replicas (KIP-966, actors/controller/eligible-leaders.ts) on the metadata state:
 * each transition of a partition's ELR and LastKnownElr with eligible.leader.replicas.version 1
 * (legal and refused), the same events with the feature at 0 (as before), ClearElr, and the
 * records refused at metadata.version 4.0-IV0.
 */
import { expect } from 'chai';
import { NO_LEADER, type PartitionState } from '../../../src/protocol/cluster.js';
import { MetadataRecordError, applyRecord, applyRecords, checkInvariants, emptyMetadata, type MetadataRecord, type MetadataState } from '../../../actors/controller/metadata-state.js';
import { changesForControlledShutdown, changesForFencedBroker, changesForUnfencedBroker, electLeader, ElectionType, partitionChange } from '../../../actors/controller/elections.js';
import {
  BROKER_MIN_ISR_WITH_ELR,
  CLUSTER_MIN_ISR_REMOVAL_WITH_ELR,
  changesForUncleanShutdown,
  effectiveMinIsr,
  elrMinIsrRefusal,
  elrPartitionChange,
  elrSafetyRecords,
  maintainElr,
  targetElr,
} from '../../../actors/controller/eligible-leaders.js';

const ELR = 'eligible.leader.replicas.version';

/** Brokers 1-3 registered, topic t (RF 3, min.insync.replicas 2) led by 1, ISR [1,2,3]; ELR on unless `elr` is 0. */
function cluster(elr: 0 | 1 = 1, config: Record<string, string | number> = { 'min.insync.replicas': 2 }): MetadataState {
  const records: MetadataRecord[] = [
    { type: 'ControllerEpoch', clusterId: 'c', controllerEpoch: 1 },
    { type: 'FeatureLevel', name: 'metadata.version', level: elr ? 26 : 22 },
    ...(elr ? [{ type: 'FeatureLevel' as const, name: ELR, level: 1 }] : []),
    ...[1, 2, 3].map((id): MetadataRecord => ({ type: 'RegisterBroker', brokerId: id, node: `n${id}`, rack: null, incarnationId: `i${id}`, brokerEpoch: id })),
    { type: 'CreateTopic', name: 't', topicId: 'tid', internal: false, config, partitions: [{ topic: 't', partition: 0, replicas: [1, 2, 3], isr: [1, 2, 3], leader: 1, leaderEpoch: 0, partitionEpoch: 0 }] },
  ];
  return applyRecords(emptyMetadata(), records);
}

const part = (s: MetadataState): PartitionState => s.topics.get('t')!.partitions[0]!;
const fence = (s: MetadataState, id: number): MetadataState => {
  const b = s.brokers.get(id)!;
  const fenced = applyRecord(s, { type: 'FenceBroker', brokerId: id, brokerEpoch: b.brokerEpoch, to: 'Fenced', reason: 'session-expired' });
  const next = applyRecords(fenced, changesForFencedBroker(fenced, id, false, 1));
  expect(checkInvariants(next)).to.deep.equal([]);
  return next;
};
const unfence = (s: MetadataState, id: number): MetadataState => {
  const b = s.brokers.get(id)!;
  const back = applyRecord(s, { type: 'UnfenceBroker', brokerId: id, brokerEpoch: b.brokerEpoch });
  return applyRecords(back, changesForUnfencedBroker(back, id, false, 1));
};
const view = (p: PartitionState) => ({ leader: p.leader, isr: p.isr, elr: p.elr ?? [], lastKnownElr: p.lastKnownElr ?? [] });

describe('actors/controller/eligible-leaders', () => {
  it('effective min ISR: the topic, else the cluster default, else the controller; never above the replication factor', () => {
    const s = cluster(1, {});
    expect(effectiveMinIsr(s, s.topics.get('t')!, 2)).to.equal(2);
    const withDefault = applyRecord(s, { type: 'BrokerConfig', resource: '', config: { 'min.insync.replicas': '3' } });
    expect(effectiveMinIsr(withDefault, withDefault.topics.get('t')!, 2)).to.equal(3);
    const big = cluster(1, { 'min.insync.replicas': 5 });
    expect(effectiveMinIsr(big, big.topics.get('t')!, 1)).to.equal(3);
  });

  it('an ISR at min ISR leaves no ELR; below it the removed replicas join the ELR; back at it the ELR empties', () => {
    let s = fence(cluster(), 3);
    expect(view(part(s))).to.deep.equal({ leader: 1, isr: [1, 2], elr: [], lastKnownElr: [] });
    s = fence(s, 2);
    expect(view(part(s))).to.deep.equal({ leader: 1, isr: [1], elr: [2], lastKnownElr: [] });
    // the leader brings 2 back into the ISR (AlterPartition): at min ISR again, the ELR empties
    s = applyRecord(unfenceOnly(s, 2), maintainElr(part(s), partitionChange(part(s), 1, [1, 2]), 2));
    expect(view(part(s))).to.deep.equal({ leader: 1, isr: [1, 2], elr: [], lastKnownElr: [] });
    expect(checkInvariants(s)).to.deep.equal([]);
  });

  it('the leader lost with the ISR below min ISR: no leader, an empty ISR, the ELR keeps both, LastKnownElr the last leader', () => {
    let s = fence(fence(cluster(), 3), 2);
    s = fence(s, 1);
    expect(view(part(s))).to.deep.equal({ leader: NO_LEADER, isr: [], elr: [1, 2], lastKnownElr: [1] });
    expect(part(s).leaderEpoch).to.equal(1);
  });

  it('a fenced ELR member is never elected; once back it is (a clean election): ISR [it], out of the ELR, LastKnownElr cleared', () => {
    let s = fence(fence(fence(cluster(), 3), 2), 1);
    // 3 (not in the ELR) comes back: nothing to elect cleanly
    s = unfence(s, 3);
    expect(view(part(s))).to.deep.equal({ leader: NO_LEADER, isr: [], elr: [1, 2], lastKnownElr: [1] });
    s = unfence(s, 2);
    expect(view(part(s))).to.deep.equal({ leader: 2, isr: [2], elr: [1], lastKnownElr: [] });
    expect(part(s).leaderEpoch).to.equal(2);
    expect(checkInvariants(s)).to.deep.equal([]);
  });

  it('an unclean shutdown takes a broker out of the ISR and ELR, and it is not elected', () => {
    let s = fence(fence(fence(cluster(), 3), 2), 1);
    s = applyRecords(s, changesForUncleanShutdown(s, 2, false, 1));
    expect(view(part(s))).to.deep.equal({ leader: NO_LEADER, isr: [], elr: [1], lastKnownElr: [1] });
    // in the ISR: it leaves it without joining the ELR
    let t = fence(cluster(), 3);
    t = applyRecords(t, changesForUncleanShutdown(t, 2, false, 1));
    expect(view(part(t))).to.deep.equal({ leader: 1, isr: [1], elr: [], lastKnownElr: [] });
  });

  it('ISR and ELR empty: the last known leader, once back, is elected (balanced recovery, unclean: ISR [it])', () => {
    let s = fence(fence(fence(cluster(), 3), 2), 1);
    s = applyRecords(s, changesForUncleanShutdown(s, 1, false, 1));
    s = applyRecords(s, changesForUncleanShutdown(s, 2, false, 1));
    expect(view(part(s))).to.deep.equal({ leader: NO_LEADER, isr: [], elr: [], lastKnownElr: [1] });
    s = unfence(s, 2);
    expect(view(part(s)), 'another replica is no clean choice').to.deep.include({ leader: NO_LEADER });
    s = unfence(s, 1);
    expect(view(part(s))).to.deep.equal({ leader: 1, isr: [1], elr: [], lastKnownElr: [] });
  });

  it('an unclean election (ElectLeaders UNCLEAN) goes to the ELR first, and clears ELR and LastKnownElr when it must go outside', () => {
    let s = fence(fence(fence(cluster(), 3), 2), 1);
    s = unfenceOnly(s, 3);
    const outcome = electLeader(s, part(s), ElectionType.UNCLEAN, 1);
    expect(outcome.ok).to.equal(true);
    if (!outcome.ok) return;
    s = applyRecord(s, outcome.change);
    expect(view(part(s))).to.deep.equal({ leader: 3, isr: [3], elr: [], lastKnownElr: [] });
  });

  it('controlled shutdown of a follower below min ISR puts it in the ELR; a leader that cannot hand over keeps leading', () => {
    let s = fence(cluster(), 3);
    s = applyRecord(s, { type: 'BeginControlledShutdown', brokerId: 2, brokerEpoch: 2 });
    s = applyRecords(s, changesForControlledShutdown(s, 2, 1).changes);
    expect(view(part(s))).to.deep.equal({ leader: 1, isr: [1], elr: [2], lastKnownElr: [] });
    s = applyRecord(s, { type: 'BeginControlledShutdown', brokerId: 1, brokerEpoch: 1 });
    const r = changesForControlledShutdown(s, 1, 1);
    expect(r.changes).to.deep.equal([]);
    expect(r.remaining).to.deep.equal([{ topic: 't', partition: 0 }]);
  });

  it('targetElr: what was in the ISR or ELR, less the target ISR and unclean shutdowns, sorted, within the replicas', () => {
    const p: PartitionState = { topic: 't', partition: 0, replicas: [3, 1, 2], isr: [3, 1], leader: 3, leaderEpoch: 0, partitionEpoch: 0, elr: [2] };
    expect(targetElr(p, [3], 2)).to.deep.equal([1, 2]);
    expect(targetElr(p, [3], 2, [2])).to.deep.equal([1]);
    expect(targetElr(p, [3, 1], 2)).to.deep.equal([]);
    expect(elrPartitionChange(p, { targetIsr: [3, 1], election: 'ONLINE', acceptable: () => true, minIsr: 3 }), 'nothing changes').to.equal(null);
  });

  describe('with the feature at 0 (and at metadata.version 4.0-IV0): as before KIP-966', () => {
    it('the ISR shrinks with no ELR, and an offline partition keeps its last ISR member', () => {
      let s = fence(fence(cluster(0), 3), 2);
      expect(part(s)).to.not.have.property('elr');
      s = fence(s, 1);
      expect(view(part(s))).to.deep.equal({ leader: NO_LEADER, isr: [1], elr: [], lastKnownElr: [] });
      s = unfence(s, 2);
      expect(view(part(s)).leader).to.equal(NO_LEADER);
      s = unfence(s, 1);
      expect(view(part(s))).to.deep.equal({ leader: 1, isr: [1], elr: [], lastKnownElr: [] });
    });

    it('refused at metadata.version 4.0-IV0: ELR fields and ClearElr', () => {
      const s = cluster(0);
      const change = { ...partitionChange(part(s), 1, [1, 2]), elr: [3] };
      expect(() => applyRecord(s, change)).to.throw(MetadataRecordError, /has no eligible leader replicas/);
      expect(() => applyRecord(s, { type: 'ClearElr', topic: '' })).to.throw(MetadataRecordError, /has no eligible leader replicas/);
    });
  });

  describe('records', () => {
    it('refused: an ELR member in the ISR, one that is not a replica, duplicates', () => {
      const s = cluster();
      const p = part(s);
      expect(() => applyRecord(s, { ...partitionChange(p, 1, [1, 2]), elr: [2] })).to.throw(MetadataRecordError, /is in the ISR/);
      expect(() => applyRecord(s, { ...partitionChange(p, 1, [1, 2]), elr: [7] })).to.throw(MetadataRecordError, /is not a replica/);
      expect(() => applyRecord(s, { ...partitionChange(p, 1, [1, 2]), elr: [3, 3] })).to.throw(MetadataRecordError, /duplicate ELR/);
    });

    it('an empty ISR: legal with ELR on, refused with it off for a partition that has one', () => {
      const on = cluster();
      expect(part(applyRecord(on, { ...partitionChange(part(on), NO_LEADER, []), elr: [1, 2, 3] })).isr).to.deep.equal([]);
      const off = cluster(0);
      expect(() => applyRecord(off, partitionChange(part(off), NO_LEADER, []))).to.throw(MetadataRecordError, /must keep its last ISR member/);
    });

    it('ClearElr empties the ELR and LastKnownElr of a topic, or of all with an empty name; an unknown topic is refused', () => {
      const s = fence(fence(fence(cluster(), 3), 2), 1);
      expect(view(part(applyRecord(s, { type: 'ClearElr', topic: 't' })))).to.deep.equal({ leader: NO_LEADER, isr: [], elr: [], lastKnownElr: [] });
      expect(part(applyRecord(s, { type: 'ClearElr', topic: '' }))).to.not.have.any.keys('elr', 'lastKnownElr');
      expect(() => applyRecord(s, { type: 'ClearElr', topic: 'nope' })).to.throw(MetadataRecordError, /unknown topic/);
    });

    it('ClearElr gives a partition it empties a new partition epoch (as Kafka\'s), one without ELR or LastKnownElr keeps its own', () => {
      const s = fence(fence(fence(cluster(), 3), 2), 1);
      const before = part(s).partitionEpoch;
      const cleared = applyRecord(s, { type: 'ClearElr', topic: '' });
      expect(part(cleared).partitionEpoch).to.equal(before + 1);
      expect(part(applyRecord(cleared, { type: 'ClearElr', topic: 't' })).partitionEpoch, 'nothing left to clear').to.equal(before + 1);
      // the next change follows the new epoch
      expect(() => applyRecord(cleared, partitionChange(part(s), NO_LEADER, []))).to.throw(MetadataRecordError, /does not follow/);
      expect(part(applyRecord(cleared, partitionChange(part(cleared), NO_LEADER, []))).partitionEpoch).to.equal(before + 2);
    });

    it('a reassignment that removes an ELR member takes it out of the ELR', () => {
      const s = fence(fence(cluster(), 3), 2);
      const p = part(s);
      const next = applyRecord(s, { ...partitionChange(p, 1, [1]), replicas: [1, 3], addingReplicas: [], removingReplicas: [] });
      expect(part(next).elr ?? []).to.deep.equal([]);
    });
  });
});

/** Broker `id` unfenced, with no elections (as when its leader adds it back to the ISR). */
function unfenceOnly(s: MetadataState, id: number): MetadataState {
  return applyRecord(s, { type: 'UnfenceBroker', brokerId: id, brokerEpoch: s.brokers.get(id)!.brokerEpoch });
}

describe('actors/controller/eligible-leaders: min.insync.replicas cluster-wide (Kafka\'s ConfigurationControlManager)', () => {
  const withConfigs = (s: MetadataState, configs: Record<string, Record<string, string>>) =>
    applyRecords(s, Object.entries(configs).map(([resource, config]): MetadataRecord => ({ type: 'BrokerConfig', resource, config })));

  it('elrSafetyRecords: the cluster-wide one from the controller\'s when none is set, every broker\'s own taken away, its other keys kept', () => {
    const s = withConfigs(cluster(), { '': { 'log.retention.ms': '5' }, '1': { 'min.insync.replicas': '3', 'compression.type': 'lz4' }, '2': { 'log.retention.ms': '9' }, '10': { 'min.insync.replicas': '1' } });
    expect(elrSafetyRecords(s, 2)).to.deep.equal([
      { type: 'BrokerConfig', resource: '', config: { 'log.retention.ms': '5', 'min.insync.replicas': '2' } },
      { type: 'BrokerConfig', resource: '1', config: { 'compression.type': 'lz4' } },
      { type: 'BrokerConfig', resource: '10', config: {} },
    ]);
    // a cluster-wide one already there stays as it is; nothing to do once both hold
    expect(elrSafetyRecords(withConfigs(cluster(), { '': { 'min.insync.replicas': '3' } }), 2)).to.deep.equal([]);
    expect(elrSafetyRecords(emptyMetadata(), 1)).to.deep.equal([{ type: 'BrokerConfig', resource: '', config: { 'min.insync.replicas': '1' } }]);
  });

  it('elrMinIsrRefusal: with ELR on a broker\'s own set or deleted, and the cluster-wide one deleted; setting the cluster-wide one, other keys and ELR off are fine', () => {
    const on = cluster();
    expect(elrMinIsrRefusal(on, '1', { 'min.insync.replicas': '2' }, [])).to.equal(BROKER_MIN_ISR_WITH_ELR);
    expect(elrMinIsrRefusal(on, '1', {}, ['min.insync.replicas'])).to.equal(BROKER_MIN_ISR_WITH_ELR);
    expect(elrMinIsrRefusal(on, '', {}, ['min.insync.replicas'])).to.equal(CLUSTER_MIN_ISR_REMOVAL_WITH_ELR);
    expect(BROKER_MIN_ISR_WITH_ELR).to.equal('Broker-level min.insync.replicas cannot be altered while ELR is enabled.');
    expect(CLUSTER_MIN_ISR_REMOVAL_WITH_ELR).to.equal('Cluster-level min.insync.replicas cannot be removed while ELR is enabled.');
    expect(elrMinIsrRefusal(on, '', { 'min.insync.replicas': '2' }, [])).to.equal(null);
    expect(elrMinIsrRefusal(on, '1', { 'log.retention.ms': '2' }, ['compression.type'])).to.equal(null);
    const off = cluster(0);
    expect(elrMinIsrRefusal(off, '1', { 'min.insync.replicas': '2' }, [])).to.equal(null);
    expect(elrMinIsrRefusal(off, '', {}, ['min.insync.replicas'])).to.equal(null);
  });
});
