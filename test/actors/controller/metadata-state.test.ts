/**
 * The replayable metadata state: applyRecord is pure, every broker state transition is legal or
 * refused as documented, partition changes keep their epochs and invariants, deletions owed to
 * absent brokers are remembered until they register; and the election rules built on it.
 */
import { expect } from 'chai';
import { NO_LEADER, type PartitionState } from '../../../src/protocol/cluster.js';
import {
  BrokerState,
  MetadataRecordError,
  applyRecord,
  applyRecords,
  checkInvariants,
  emptyMetadata,
  isKnownRecordType,
  toClusterMetadata,
  type MetadataRecord,
  type MetadataState,
} from '../../../actors/controller/metadata-state.js';
import {
  changesForControlledShutdown,
  changesForFencedBroker,
  changesForOfflineReplicas,
  changesForUnfencedBroker,
  partitionChange,
} from '../../../actors/controller/elections.js';

const register = (brokerId: number, brokerEpoch: number, incarnationId = `i${brokerId}`): MetadataRecord => ({
  type: 'RegisterBroker',
  brokerId,
  node: `n${brokerId}`,
  rack: null,
  incarnationId,
  brokerEpoch,
});
const fence = (brokerId: number, brokerEpoch: number, to: 'Fenced' | 'ShutDown' = 'Fenced'): MetadataRecord => ({
  type: 'FenceBroker',
  brokerId,
  brokerEpoch,
  to,
  reason: to === 'Fenced' ? 'session-expired' : 'controlled-shutdown',
});
const unfence = (brokerId: number, brokerEpoch: number): MetadataRecord => ({ type: 'UnfenceBroker', brokerId, brokerEpoch });
const beginShutdown = (brokerId: number, brokerEpoch: number): MetadataRecord => ({ type: 'BeginControlledShutdown', brokerId, brokerEpoch });

function partition(topic: string, p: number, replicas: number[], over: Partial<PartitionState> = {}): PartitionState {
  return { topic, partition: p, replicas, isr: [...replicas], leader: replicas[0]!, leaderEpoch: 0, partitionEpoch: 0, ...over };
}
const createTopic = (name: string, partitions: PartitionState[], config: Record<string, string | number> = {}): MetadataRecord => ({
  type: 'CreateTopic',
  name,
  topicId: `id-${name}`,
  internal: false,
  config,
  partitions,
});

function cluster(brokers: number[]): MetadataState {
  return applyRecords(emptyMetadata(), [{ type: 'ControllerEpoch', clusterId: 'c', controllerEpoch: 1 }, ...brokers.map((b) => register(b, 1))]);
}

function brokerState(s: MetadataState, id: number): string | undefined {
  return s.brokers.get(id)?.state;
}

describe('actors/controller/metadata-state', () => {
  describe('applyRecord', () => {
    it('is pure: the input state is never changed', () => {
      const s0 = cluster([1, 2]);
      const s1 = applyRecord(s0, createTopic('t', [partition('t', 0, [1, 2])]));
      const snapshot = JSON.stringify(toClusterMetadata(s1, 'x'));
      const s2 = applyRecords(s1, [fence(2, 1), partitionChange(s1.topics.get('t')!.partitions[0]!, 1, [1])]);
      expect(JSON.stringify(toClusterMetadata(s1, 'x'))).to.equal(snapshot);
      expect(s0.topics.size).to.equal(0);
      expect(brokerState(s1, 2)).to.equal(BrokerState.Unfenced);
      expect(brokerState(s2, 2)).to.equal(BrokerState.Fenced);
    });

    it('a record of a type no controller knows is refused, not applied as nothing (isKnownRecordType tells them apart)', () => {
      const s = cluster([]);
      expect(() => applyRecord(s, { type: 'Garbage' } as unknown as MetadataRecord)).to.throw(MetadataRecordError, /unknown metadata record type "Garbage"/);
      expect(isKnownRecordType({ type: 'RegisterBroker' })).to.equal(true);
      for (const r of [{ type: 'Garbage' }, { type: 'constructor' }, { type: 'toString' }, { type: 7 }, null, 'RegisterBroker', [{ type: 'FenceBroker' }]]) {
        expect(isKnownRecordType(r), JSON.stringify(r)).to.equal(false);
      }
    });

    it('controller epochs only grow, and a log of another cluster is refused', () => {
      const s = cluster([]);
      expect(applyRecord(s, { type: 'ControllerEpoch', clusterId: 'c', controllerEpoch: 2 }).controllerEpoch).to.equal(2);
      expect(() => applyRecord(s, { type: 'ControllerEpoch', clusterId: 'c', controllerEpoch: 1 })).to.throw(MetadataRecordError, /not above 1/);
      expect(() => applyRecord(s, { type: 'ControllerEpoch', clusterId: 'd', controllerEpoch: 2 })).to.throw(MetadataRecordError, /belongs to cluster 'c'/);
    });
  });

  describe('broker state transitions', () => {
    it('RegisterBroker: new -> Unfenced; Fenced or ShutDown -> Unfenced; Unfenced -> Unfenced only as a retry of the same incarnation', () => {
      let s = cluster([1]);
      expect(brokerState(s, 1)).to.equal(BrokerState.Unfenced);
      s = applyRecord(s, register(1, 2)); // same incarnation: a retry
      expect(s.brokers.get(1)!.brokerEpoch).to.equal(2);
      expect(() => applyRecord(s, register(1, 3, 'other'))).to.throw(MetadataRecordError, /cannot go from Unfenced/);
      expect(() => applyRecord(s, register(1, 2))).to.throw(MetadataRecordError, /epoch 2 is not above 2/);
      expect(() => applyRecord(emptyMetadata(), register(5, 0))).to.throw(MetadataRecordError, /must be above 0/);
      expect(brokerState(applyRecords(s, [fence(1, 2), register(1, 3, 'other')]), 1)).to.equal(BrokerState.Unfenced);
      expect(brokerState(applyRecords(s, [fence(1, 2, 'ShutDown'), register(1, 3, 'other')]), 1)).to.equal(BrokerState.Unfenced);
      const shutting = applyRecord(s, beginShutdown(1, 2));
      expect(() => applyRecord(shutting, register(1, 3))).to.throw(MetadataRecordError, /cannot go from ShuttingDown/);
    });

    it('UnfenceBroker: only Fenced -> Unfenced, with the current epoch', () => {
      const s = cluster([1]);
      const fenced = applyRecord(s, fence(1, 1));
      expect(brokerState(applyRecord(fenced, unfence(1, 1)), 1)).to.equal(BrokerState.Unfenced);
      expect(() => applyRecord(fenced, unfence(1, 2))).to.throw(MetadataRecordError, /epoch 1, not 2/);
      expect(() => applyRecord(s, unfence(1, 1))).to.throw(MetadataRecordError, /cannot go from Unfenced/);
      expect(() => applyRecord(applyRecord(s, fence(1, 1, 'ShutDown')), unfence(1, 1))).to.throw(MetadataRecordError, /cannot go from ShutDown/);
      expect(() => applyRecord(s, unfence(9, 1))).to.throw(MetadataRecordError, /not registered/);
    });

    it('BeginControlledShutdown: only Unfenced -> ShuttingDown', () => {
      const s = cluster([1]);
      expect(brokerState(applyRecord(s, beginShutdown(1, 1)), 1)).to.equal(BrokerState.ShuttingDown);
      expect(() => applyRecord(applyRecord(s, fence(1, 1)), beginShutdown(1, 1))).to.throw(MetadataRecordError, /cannot go from Fenced/);
      expect(() => applyRecord(applyRecord(s, beginShutdown(1, 1)), beginShutdown(1, 1))).to.throw(MetadataRecordError, /cannot go from ShuttingDown/);
    });

    it('FenceBroker(Fenced): Unfenced or ShuttingDown -> Fenced; FenceBroker(ShutDown): from any registered state but ShutDown', () => {
      const s = cluster([1]);
      expect(brokerState(applyRecord(s, fence(1, 1)), 1)).to.equal(BrokerState.Fenced);
      expect(brokerState(applyRecords(s, [beginShutdown(1, 1), fence(1, 1)]), 1)).to.equal(BrokerState.Fenced);
      expect(() => applyRecords(s, [fence(1, 1), fence(1, 1)])).to.throw(MetadataRecordError, /cannot go from Fenced/);
      expect(brokerState(applyRecords(s, [fence(1, 1), fence(1, 1, 'ShutDown')]), 1)).to.equal(BrokerState.ShutDown);
      expect(brokerState(applyRecords(s, [beginShutdown(1, 1), fence(1, 1, 'ShutDown')]), 1)).to.equal(BrokerState.ShutDown);
      expect(() => applyRecords(s, [fence(1, 1, 'ShutDown'), fence(1, 1, 'ShutDown')])).to.throw(MetadataRecordError, /cannot go from ShutDown/);
      expect(() => applyRecord(s, fence(1, 7))).to.throw(MetadataRecordError, /epoch 1, not 7/);
    });
  });

  describe('UnregisterBroker (a decommissioned broker leaves the registrations)', () => {
    const unregister = (brokerId: number, brokerEpoch: number): MetadataRecord => ({ type: 'UnregisterBroker', brokerId, brokerEpoch });

    it('from each registered state (Unfenced, ShuttingDown, Fenced, ShutDown) to none, its epoch kept as retired', () => {
      const s = cluster([1, 2]);
      for (const [name, before] of [
        ['Unfenced', s],
        ['ShuttingDown', applyRecord(s, beginShutdown(1, 1))],
        ['Fenced', applyRecord(s, fence(1, 1))],
        ['ShutDown', applyRecord(s, fence(1, 1, 'ShutDown'))],
      ] as const) {
        const after = applyRecord(before, unregister(1, 1));
        expect(after.brokers.has(1), name).to.equal(false);
        expect(after.brokers.has(2), name).to.equal(true);
        expect(after.retiredBrokerEpochs.get(1), name).to.equal(1);
        expect(toClusterMetadata(after, 'x').brokers.map((b) => b.brokerId), name).to.deep.equal([2]);
      }
    });

    it('refused for a broker not registered (or already unregistered) and for a stale epoch', () => {
      const s = cluster([1]);
      expect(() => applyRecord(s, unregister(9, 1))).to.throw(MetadataRecordError, /broker 9 is not registered/);
      expect(() => applyRecord(s, unregister(1, 2))).to.throw(MetadataRecordError, /epoch 1, not 2/);
      expect(() => applyRecords(s, [unregister(1, 1), unregister(1, 1)])).to.throw(MetadataRecordError, /broker 1 is not registered/);
    });

    it('refused while the broker leads a partition, is in an ISR beside others, or in an ELR; the last ISR member of a partition without a leader may stay', () => {
      const s = applyRecords(cluster([1, 2]), [createTopic('t', [partition('t', 0, [1, 2]), partition('t', 1, [2, 1])])]);
      expect(() => applyRecord(s, unregister(1, 1))).to.throw(MetadataRecordError, /still leads t-0/);
      const moved = applyRecord(s, partitionChange(s.topics.get('t')!.partitions[0]!, 2, [2, 1]));
      expect(() => applyRecord(moved, unregister(1, 1))).to.throw(MetadataRecordError, /still in the ISR of t-0/);
      const out = applyRecords(moved, changesForFencedBroker(moved, 1, false));
      expect(applyRecord(out, unregister(1, 1)).brokers.has(1)).to.equal(false);
      // an offline partition keeps its last ISR member: it may be the one that goes
      const alone = applyRecords(cluster([1, 2]), [createTopic('u', [partition('u', 0, [1])]), fence(1, 1)]);
      const offline = applyRecords(alone, changesForFencedBroker(alone, 1, false));
      expect(offline.topics.get('u')!.partitions[0]).to.include({ leader: NO_LEADER });
      expect(offline.topics.get('u')!.partitions[0]!.isr).to.deep.equal([1]);
      expect(applyRecord(offline, unregister(1, 1)).topics.get('u')!.partitions[0]!.replicas).to.deep.equal([1]);
      const withElr = applyRecords(cluster([1, 2, 3]), [
        { type: 'FeatureLevel', name: 'metadata.version', level: 25 },
        createTopic('e', [partition('e', 0, [2, 3, 1], { isr: [2, 3] })]),
        { type: 'PartitionChange', topic: 'e', partition: 0, leader: 2, isr: [2, 3], leaderEpoch: 0, partitionEpoch: 1, elr: [1] },
      ]);
      expect(() => applyRecord(withElr, unregister(1, 1))).to.throw(MetadataRecordError, /still in the ELR of e-0/);
    });

    it('registering again takes an epoch above the retired one (nothing of the old incarnation passes for the new one), and clears it', () => {
      const s = applyRecords(cluster([1]), [register(1, 2), register(1, 3), unregister(1, 3)]);
      expect(() => applyRecord(s, register(1, 1, 'new'))).to.throw(MetadataRecordError, /broker epoch 1 must be above 3/);
      expect(() => applyRecord(s, register(1, 3, 'new'))).to.throw(MetadataRecordError, /broker epoch 3 must be above 3/);
      const back = applyRecord(s, register(1, 4, 'new'));
      expect(back.brokers.get(1)).to.include({ brokerEpoch: 4, state: BrokerState.Unfenced, incarnationId: 'new' });
      expect(back.retiredBrokerEpochs.size).to.equal(0);
      expect(() => applyRecord(emptyMetadata(), register(5, 0))).to.throw(MetadataRecordError, /broker epoch 0 must be above 0/);
    });

    it('deletions owed to the broker stay owed after it is unregistered, until it registers again', () => {
      const s = applyRecords(cluster([1, 2]), [createTopic('d', [partition('d', 0, [2, 1], { isr: [2] })]), fence(1, 1)]);
      const gone = applyRecords(s, [{ type: 'UnregisterBroker', brokerId: 1, brokerEpoch: 1 }, { type: 'RemoveTopic', name: 'd', topicId: 'id-d' }]);
      expect(gone.pendingDeletes.get(1)).to.deep.equal([{ topic: 'd', topicId: 'id-d', partition: 0 }]);
      expect(applyRecord(gone, register(1, 2, 'back')).pendingDeletes.has(1)).to.equal(false);
    });
  });

  describe('replicas offline in a failed log dir', () => {
    const offline = (brokerId: number, brokerEpoch: number, partitions: { topic: string; partition: number }[]): MetadataRecord => ({ type: 'BrokerReplicasOffline', brokerId, brokerEpoch, partitions });
    const base = () => applyRecords(cluster([1, 2]), [createTopic('t', [partition('t', 0, [1, 2]), partition('t', 1, [1, 2]), partition('t', 2, [2])]), createTopic('u', [partition('u', 0, [1])])]);

    it('BrokerReplicasOffline: a live broker (Unfenced or ShuttingDown) with its epoch; the set replaces the last, sorted, without repeats or partitions it does not host', () => {
      const s = applyRecord(base(), offline(1, 1, [{ topic: 'u', partition: 0 }, { topic: 't', partition: 1 }, { topic: 't', partition: 1 }, { topic: 't', partition: 2 }, { topic: 'gone', partition: 0 }]));
      expect(s.brokers.get(1)!.offlineReplicas).to.deep.equal([{ topic: 't', partition: 1 }, { topic: 'u', partition: 0 }]);
      expect(toClusterMetadata(s, 'x').brokers.find((b) => b.brokerId === 1)!.offlineReplicas).to.deep.equal([{ topic: 't', partition: 1 }, { topic: 'u', partition: 0 }]);
      expect(toClusterMetadata(s, 'x').brokers.find((b) => b.brokerId === 2)).to.not.have.property('offlineReplicas');
      const replaced = applyRecord(s, offline(1, 1, [{ topic: 't', partition: 0 }]));
      expect(replaced.brokers.get(1)!.offlineReplicas).to.deep.equal([{ topic: 't', partition: 0 }]);
      expect(applyRecord(s, offline(1, 1, [])).brokers.get(1)).to.not.have.property('offlineReplicas');
      expect(applyRecords(base(), [beginShutdown(1, 1), offline(1, 1, [{ topic: 'u', partition: 0 }])]).brokers.get(1)!.offlineReplicas).to.have.length(1);
      expect(() => applyRecord(base(), offline(1, 2, []))).to.throw(MetadataRecordError, /epoch 1, not 2/);
      expect(() => applyRecord(base(), offline(9, 1, []))).to.throw(MetadataRecordError, /not registered/);
      expect(() => applyRecord(applyRecord(base(), fence(1, 1)), offline(1, 1, []))).to.throw(MetadataRecordError, /cannot go from Fenced/);
      expect(() => applyRecord(applyRecord(base(), fence(1, 1, 'ShutDown')), offline(1, 1, []))).to.throw(MetadataRecordError, /cannot go from ShutDown/);
    });

    it('kept while the broker is fenced and unfenced, cleared when it registers again, and dropped with their topic', () => {
      const s = applyRecord(base(), offline(1, 1, [{ topic: 't', partition: 0 }, { topic: 'u', partition: 0 }]));
      expect(applyRecords(s, [fence(1, 1), unfence(1, 1)]).brokers.get(1)!.offlineReplicas).to.have.length(2);
      expect(applyRecords(s, [fence(1, 1), register(1, 2, 'again')]).brokers.get(1)).to.not.have.property('offlineReplicas');
      const removed = applyRecord(s, { type: 'RemoveTopic', name: 'u', topicId: 'id-u' });
      expect(removed.brokers.get(1)!.offlineReplicas).to.deep.equal([{ topic: 't', partition: 0 }]);
      const recreated = applyRecords(removed, [{ type: 'RemoveTopic', name: 't', topicId: 'id-t' }, createTopic('t', [partition('t', 0, [1, 2])])]);
      expect(recreated.brokers.get(1)).to.not.have.property('offlineReplicas');
    });
  });

  describe('topic configs', () => {
    it('ChangeTopicConfig replaces a topic\'s overrides; an unknown topic or id is refused', () => {
      const s0 = applyRecord(cluster([1]), { type: 'CreateTopic', name: 't', topicId: 'id-t', internal: false, config: { 'retention.ms': 5 }, partitions: [partition('t', 0, [1])] });
      const s1 = applyRecord(s0, { type: 'ChangeTopicConfig', name: 't', topicId: 'id-t', config: { 'segment.ms': 9 } });
      expect(s1.topics.get('t')!.config).to.deep.equal({ 'segment.ms': 9 });
      expect(s0.topics.get('t')!.config).to.deep.equal({ 'retention.ms': 5 });
      expect(() => applyRecord(s0, { type: 'ChangeTopicConfig', name: 't', topicId: 'other', config: {} })).to.throw(MetadataRecordError);
      expect(() => applyRecord(s0, { type: 'ChangeTopicConfig', name: 'nope', topicId: 'id-t', config: {} })).to.throw(MetadataRecordError);
    });
  });

  describe('producer id blocks', () => {
    it('AllocateProducerIds moves the next free id past the block', () => {
      const s = applyRecord(cluster([1]), { type: 'AllocateProducerIds', brokerId: 1, brokerEpoch: 1, firstProducerId: 0, nextProducerId: 1000 });
      expect(s.nextProducerId).to.equal(1000);
      expect(applyRecord(s, { type: 'AllocateProducerIds', brokerId: 1, brokerEpoch: 1, firstProducerId: 1000, nextProducerId: 2000 }).nextProducerId).to.equal(2000);
    });

    it('refuses a block that does not start at the next free id, an empty block, an unknown broker or a stale epoch', () => {
      const s = cluster([1]);
      expect(() => applyRecord(s, { type: 'AllocateProducerIds', brokerId: 1, brokerEpoch: 1, firstProducerId: 5, nextProducerId: 1005 })).to.throw(MetadataRecordError, /next free producer id is 0/);
      expect(() => applyRecord(s, { type: 'AllocateProducerIds', brokerId: 1, brokerEpoch: 1, firstProducerId: 0, nextProducerId: 0 })).to.throw(MetadataRecordError, /empty or invalid/);
      expect(() => applyRecord(s, { type: 'AllocateProducerIds', brokerId: 9, brokerEpoch: 1, firstProducerId: 0, nextProducerId: 10 })).to.throw(MetadataRecordError, /not registered/);
      expect(() => applyRecord(s, { type: 'AllocateProducerIds', brokerId: 1, brokerEpoch: 4, firstProducerId: 0, nextProducerId: 10 })).to.throw(MetadataRecordError, /epoch/);
    });
  });

  describe('topics and partitions', () => {
    it('CreateTopic refuses an existing name and malformed partitions', () => {
      const s = applyRecord(cluster([1, 2]), createTopic('t', [partition('t', 0, [1, 2])]));
      expect(() => applyRecord(s, createTopic('t', [partition('t', 0, [1])]))).to.throw(MetadataRecordError, /already exists/);
      expect(() => applyRecord(s, createTopic('u', []))).to.throw(MetadataRecordError, /no partitions/);
      expect(() => applyRecord(s, createTopic('u', [partition('u', 1, [1])]))).to.throw(MetadataRecordError, /out of order/);
      expect(() => applyRecord(s, createTopic('u', [partition('u', 0, [1, 1])]))).to.throw(MetadataRecordError, /bad replicas/);
      expect(() => applyRecord(s, createTopic('u', [partition('u', 0, [1], { isr: [1, 2] })]))).to.throw(MetadataRecordError, /not a replica/);
    });

    it('CreatePartitions appends partitions after the existing ones', () => {
      const s = applyRecord(cluster([1, 2]), createTopic('t', [partition('t', 0, [1, 2])]));
      const grown = applyRecord(s, { type: 'CreatePartitions', topic: 't', partitions: [partition('t', 1, [2, 1])] });
      expect(grown.topics.get('t')!.partitions.map((p) => p.partition)).to.deep.equal([0, 1]);
      expect(() => applyRecord(s, { type: 'CreatePartitions', topic: 't', partitions: [partition('t', 2, [2])] })).to.throw(MetadataRecordError, /out of order/);
      expect(() => applyRecord(s, { type: 'CreatePartitions', topic: 'x', partitions: [partition('x', 0, [2])] })).to.throw(MetadataRecordError, /unknown topic/);
    });

    it('PartitionChange: the partition epoch must follow, a new leader needs a higher leader epoch, leader and ISR must be replicas', () => {
      const s = applyRecord(cluster([1, 2, 3]), createTopic('t', [partition('t', 0, [1, 2])]));
      const p = s.topics.get('t')!.partitions[0]!;
      const ok = applyRecord(s, partitionChange(p, 2, [2]));
      expect(ok.topics.get('t')!.partitions[0]).to.deep.include({ leader: 2, isr: [2], leaderEpoch: 1, partitionEpoch: 1 });
      const base = { type: 'PartitionChange' as const, topic: 't', partition: 0 };
      expect(() => applyRecord(s, { ...base, leader: 1, isr: [1], leaderEpoch: 0, partitionEpoch: 2 })).to.throw(MetadataRecordError, /does not follow/);
      expect(() => applyRecord(s, { ...base, leader: 2, isr: [2], leaderEpoch: 0, partitionEpoch: 1 })).to.throw(MetadataRecordError, /leader epoch above 0/);
      expect(() => applyRecord(s, { ...base, leader: 3, isr: [3], leaderEpoch: 1, partitionEpoch: 1 })).to.throw(MetadataRecordError, /not a replica/);
      expect(() => applyRecord(s, { ...base, leader: 1, isr: [2], leaderEpoch: 0, partitionEpoch: 1 })).to.throw(MetadataRecordError, /not in the ISR/);
      expect(() => applyRecord(s, { ...base, leader: NO_LEADER, isr: [], leaderEpoch: 1, partitionEpoch: 1 })).to.throw(MetadataRecordError, /last ISR member/);
      expect(() => applyRecord(s, { ...base, partition: 4, leader: 1, isr: [1], leaderEpoch: 0, partitionEpoch: 1 })).to.throw(MetadataRecordError, /unknown partition/);
    });

    it('PartitionChange with replicas: a reassignment step, checked; replicas dropped on brokers that are down are owed a delete', () => {
      let s = applyRecord(cluster([1, 2, 3]), createTopic('t', [partition('t', 0, [1, 2])]));
      const p = s.topics.get('t')!.partitions[0]!;
      const step = { ...partitionChange(p, 1, [1, 2]), replicas: [1, 3, 2], addingReplicas: [3], removingReplicas: [2] };
      const started = applyRecord(s, step);
      expect(started.topics.get('t')!.partitions[0]).to.deep.equal({ topic: 't', partition: 0, replicas: [1, 3, 2], isr: [1, 2], leader: 1, leaderEpoch: 0, partitionEpoch: 1, addingReplicas: [3], removingReplicas: [2] });
      // a change without replicas keeps the reassignment as it is
      const isrOnly = applyRecord(started, partitionChange(started.topics.get('t')!.partitions[0]!, 1, [1, 2, 3]));
      expect(isrOnly.topics.get('t')!.partitions[0]).to.deep.include({ replicas: [1, 3, 2], addingReplicas: [3], removingReplicas: [2] });
      const bad = (over: object) => () => applyRecord(s, { ...step, ...over });
      expect(bad({ replicas: [] })).to.throw(MetadataRecordError, /bad replicas/);
      expect(bad({ replicas: [1, 1] })).to.throw(MetadataRecordError, /bad replicas/);
      expect(bad({ addingReplicas: [4] })).to.throw(MetadataRecordError, /reassigned replica 4 is not among/);
      expect(bad({ addingReplicas: [2], removingReplicas: [2] })).to.throw(MetadataRecordError, /both added and removed/);
      expect(bad({ replicas: [1, 2], removingReplicas: [1, 2], addingReplicas: [] })).to.throw(MetadataRecordError, /at least one replica/);
      expect(bad({ replicas: [3], addingReplicas: [], removingReplicas: [] })).to.throw(MetadataRecordError, /not a replica/);
      expect(bad({ replicas: [1, 3], isr: [1, 2], addingReplicas: [], removingReplicas: [] })).to.throw(MetadataRecordError, /ISR member 2 is not a replica/);
      // broker 2 down when the reassignment drops it: it deletes its copy on registering again
      s = applyRecord(started, fence(2, 1));
      const q = s.topics.get('t')!.partitions[0]!;
      s = applyRecord(s, { ...partitionChange(q, 1, [1]), replicas: [1, 3], addingReplicas: [], removingReplicas: [] });
      expect(s.topics.get('t')!.partitions[0]).to.deep.equal({ topic: 't', partition: 0, replicas: [1, 3], isr: [1], leader: 1, leaderEpoch: 0, partitionEpoch: 2 });
      expect(s.pendingDeletes.get(2)).to.deep.equal([{ topic: 't', topicId: 'id-t', partition: 0 }]);
      expect(checkInvariants(s)).to.deep.equal([]);
    });

    it('RemoveTopic remembers deletions for replicas that are not live, until they register', () => {
      let s = applyRecord(cluster([1, 2, 3]), createTopic('t', [partition('t', 0, [1, 2]), partition('t', 1, [2, 3])]));
      s = applyRecords(s, [fence(2, 1), ...changesForFencedBroker(applyRecord(s, fence(2, 1)), 2, false)]);
      expect(() => applyRecord(s, { type: 'RemoveTopic', name: 't', topicId: 'wrong' })).to.throw(MetadataRecordError, /has id/);
      s = applyRecord(s, { type: 'RemoveTopic', name: 't', topicId: 'id-t' });
      expect(s.topics.has('t')).to.equal(false);
      expect(s.pendingDeletes.get(2)).to.deep.equal([
        { topic: 't', topicId: 'id-t', partition: 0 },
        { topic: 't', topicId: 'id-t', partition: 1 },
      ]);
      expect(s.pendingDeletes.has(1)).to.equal(false);
      expect(applyRecord(s, register(2, 2, 'again')).pendingDeletes.has(2)).to.equal(false);
      expect(() => applyRecord(s, { type: 'RemoveTopic', name: 't', topicId: 'id-t' })).to.throw(MetadataRecordError, /unknown topic/);
    });
  });

  describe('the quorum voter set (QuorumVoters, KIP-853)', () => {
    it('none recorded: null (the topology\'s); a record replaces the set whole', () => {
      const s0 = emptyMetadata();
      expect(s0.quorumVoters).to.equal(null);
      const s1 = applyRecord(s0, { type: 'QuorumVoters', voters: [{ id: 1, node: 'c1' }, { id: 2, node: 'c2', directoryId: 'd2' }] });
      expect(s1.quorumVoters).to.deep.equal([{ id: 1, node: 'c1' }, { id: 2, node: 'c2', directoryId: 'd2' }]);
      expect(s0.quorumVoters).to.equal(null);
      const s2 = applyRecord(s1, { type: 'QuorumVoters', voters: [{ id: 2, node: 'c2', directoryId: 'd2' }] });
      expect(s2.quorumVoters!.map((v) => v.id)).to.deep.equal([2]);
    });

    it('refused: an empty set, a voter named twice, two voters on one node, a bad id', () => {
      const bad = (voters: { id: number; node: string }[], why: RegExp) => expect(() => applyRecord(emptyMetadata(), { type: 'QuorumVoters', voters })).to.throw(MetadataRecordError, why);
      bad([], /at least one voter/);
      bad([{ id: 1, node: 'a' }, { id: 1, node: 'b' }], /named twice/);
      bad([{ id: 1, node: 'a' }, { id: 2, node: 'a' }], /two voters/);
      bad([{ id: -1, node: 'a' }], /non-negative/);
      bad([{ id: 1, node: '' }], /no node/);
    });
  });

  describe('feature levels (FeatureLevel, KIP-584)', () => {
    it('none recorded: no levels, epoch 0; a record sets one level and raises the epoch; level 0 drops it', () => {
      const s0 = emptyMetadata();
      expect([s0.features, s0.featuresEpoch]).to.deep.equal([{}, 0]);
      const s1 = applyRecord(s0, { type: 'FeatureLevel', name: 'group.version', level: 1 });
      const s2 = applyRecord(s1, { type: 'FeatureLevel', name: 'metadata.version', level: 22 });
      expect([s2.features, s2.featuresEpoch]).to.deep.equal([{ 'group.version': 1, 'metadata.version': 22 }, 2]);
      expect(s1.features).to.deep.equal({ 'group.version': 1 });
      const s3 = applyRecord(s2, { type: 'FeatureLevel', name: 'group.version', level: 0 });
      expect([s3.features, s3.featuresEpoch]).to.deep.equal([{ 'metadata.version': 22 }, 3]);
      expect(toClusterMetadata(s3, 'c').features).to.deep.equal({ levels: { 'metadata.version': 22 }, epoch: 3 });
    });

    it('refused: no name, a level below 0, above 32767 or not an integer', () => {
      const bad = (name: string, level: number) => expect(() => applyRecord(emptyMetadata(), { type: 'FeatureLevel', name, level })).to.throw(MetadataRecordError, /bad feature level/);
      bad('', 1);
      bad('group.version', -1);
      bad('group.version', 40_000);
      bad('group.version', 1.5);
    });
  });

  describe('elections', () => {
    function withTopic(brokers: number[], partitions: PartitionState[], config: Record<string, string | number> = {}): MetadataState {
      return applyRecord(cluster(brokers), createTopic('t', partitions, config));
    }
    const fenceAndElect = (s: MetadataState, id: number, unclean = false) => {
      const fenced = applyRecord(s, fence(id, 1));
      return applyRecords(fenced, changesForFencedBroker(fenced, id, unclean));
    };
    const p0 = (s: MetadataState) => s.topics.get('t')!.partitions[0]!;

    it('a fenced leader hands over to the first eligible ISR member, skipping ineligible ones', () => {
      let s = withTopic([1, 2, 3], [partition('t', 0, [1, 2, 3])]);
      s = applyRecord(s, beginShutdown(2, 1)); // 2 is shutting down: not eligible to lead
      s = fenceAndElect(s, 1);
      expect(p0(s)).to.deep.include({ leader: 3, isr: [2, 3], leaderEpoch: 1, partitionEpoch: 1 });
    });

    it('replicas reported offline (a failed log dir): only those partitions lose the broker, as if it were fenced; a repeated report changes nothing', () => {
      const start = withTopic([1, 2, 3], [partition('t', 0, [1, 2, 3]), partition('t', 1, [2, 1, 3]), partition('t', 2, [1, 3]), partition('t', 3, [1, 2], { isr: [1] })]);
      const asked = [0, 1, 3, 9].map((partition) => ({ topic: 't', partition }));
      const changes = changesForOfflineReplicas(start, 1, [...asked, { topic: 'nope', partition: 0 }], false);
      const s = applyRecords(start, changes);
      const ps = s.topics.get('t')!.partitions;
      // led by 1: the next ISR member leads; followed by 1: it leaves the ISR; not named: as it was
      expect(ps[0]).to.deep.include({ leader: 2, isr: [2, 3], leaderEpoch: 1 });
      expect(ps[1]).to.deep.include({ leader: 2, isr: [2, 3], leaderEpoch: 0 });
      expect(ps[2]).to.deep.include({ leader: 1, isr: [1, 3], leaderEpoch: 0, partitionEpoch: 0 });
      // no other ISR member: offline, keeping its last member (unclean election would pick 2)
      expect(ps[3]).to.deep.include({ leader: NO_LEADER, isr: [1] });
      expect(changesForOfflineReplicas(start, 1, [{ topic: 't', partition: 3 }], true).map((c) => c.leader)).to.deep.equal([2]);
      expect(checkInvariants(s)).to.deep.equal([]);
      expect(changesForOfflineReplicas(s, 1, asked, false)).to.deep.equal([]);
    });

    it('a fenced follower leaves the ISR without a leader change', () => {
      const s = fenceAndElect(withTopic([1, 2, 3], [partition('t', 0, [1, 2, 3])]), 3);
      expect(p0(s)).to.deep.include({ leader: 1, isr: [1, 2], leaderEpoch: 0, partitionEpoch: 1 });
      expect(checkInvariants(s)).to.deep.equal([]);
    });

    it('without an eligible ISR member the partition goes offline keeping its last member; unclean election picks a live replica', () => {
      const start = withTopic([1, 2], [partition('t', 0, [1, 2], { isr: [1] })]);
      const offline = fenceAndElect(start, 1);
      expect(p0(offline)).to.deep.include({ leader: NO_LEADER, isr: [1], leaderEpoch: 1, partitionEpoch: 1 });
      expect(checkInvariants(offline)).to.deep.equal([]);
      expect(p0(fenceAndElect(start, 1, true))).to.deep.include({ leader: 2, isr: [2], leaderEpoch: 1 });
      const byTopic = withTopic([1, 2], [partition('t', 0, [1, 2], { isr: [1] })], { 'unclean.leader.election.enable': 'true' });
      expect(p0(fenceAndElect(byTopic, 1, false))).to.deep.include({ leader: 2, isr: [2] });
      const optOut = withTopic([1, 2], [partition('t', 0, [1, 2], { isr: [1] })], { 'unclean.leader.election.enable': 'false' });
      expect(p0(fenceAndElect(optOut, 1, true))).to.deep.include({ leader: NO_LEADER });
    });

    it('the last ISR member coming back leads again; another replica only with unclean election', () => {
      const offline = fenceAndElect(withTopic([1, 2], [partition('t', 0, [1, 2], { isr: [1] })]), 1);
      const fenced2 = fenceAndElect(offline, 2);
      const back2 = applyRecord(fenced2, register(2, 2));
      expect(changesForUnfencedBroker(back2, 2, false)).to.deep.equal([]);
      expect(changesForUnfencedBroker(back2, 2, true)).to.deep.equal([partitionChange(p0(back2), 2, [2])]);
      const back1 = applyRecord(offline, unfence(1, 1));
      const elected = applyRecords(back1, changesForUnfencedBroker(back1, 1, false));
      expect(p0(elected)).to.deep.include({ leader: 1, isr: [1], leaderEpoch: 2, partitionEpoch: 2 });
    });

    it('controlled shutdown moves what it can and reports what it cannot', () => {
      let s = withTopic([1, 2], [partition('t', 0, [1, 2]), partition('t', 1, [1]), partition('t', 2, [2, 1])]);
      s = applyRecord(s, beginShutdown(1, 1));
      const { changes, remaining } = changesForControlledShutdown(s, 1);
      s = applyRecords(s, changes);
      expect(s.topics.get('t')!.partitions.map((p) => [p.leader, p.isr])).to.deep.equal([
        [2, [2]],
        [1, [1]],
        [2, [2]],
      ]);
      expect(remaining).to.deep.equal([{ topic: 't', partition: 1 }]);
      expect(checkInvariants(s)).to.deep.equal([]);
    });

    it('checkInvariants names what is wrong', () => {
      const s = withTopic([1, 2], [partition('t', 0, [1, 2])]);
      const broken = applyRecord(s, fence(2, 1)); // fenced but still in the ISR: elections not applied
      expect(checkInvariants(broken)).to.deep.equal(['t-0: ISR member 2 is not live']);
    });
  });
});
