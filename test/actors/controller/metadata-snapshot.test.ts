/**
 * Metadata snapshots: an image of every kind of state (brokers in each state, topics with
 * configs and a reassignment, deletions owed, producer ids, ACLs, broker configs, client quotas)
 * comes back exactly; a snapshot file round-trips, and a damaged one is refused.
 */
import { expect } from 'chai';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { METADATA_SNAPSHOT_FILE, MetadataSnapshotError, fromImage, isImage, readSnapshot, toImage, writeSnapshot } from '../../../actors/controller/metadata-snapshot.js';
import { applyRecords, emptyMetadata, type MetadataRecord, type MetadataState } from '../../../actors/controller/metadata-state.js';

function richState(): MetadataState {
  const p = (partition: number, replicas: number[]) => ({ topic: 't', partition, leader: replicas[0]!, isr: [...replicas], replicas, leaderEpoch: 0, partitionEpoch: 0 });
  const records: MetadataRecord[] = [
    { type: 'ControllerEpoch', clusterId: 'c', controllerEpoch: 3 },
    ...[1, 2, 3].map((id): MetadataRecord => ({ type: 'RegisterBroker', brokerId: id, node: `n${id}`, rack: id === 1 ? 'r1' : null, incarnationId: `i${id}`, brokerEpoch: 1, endpoint: null, kafkaEndpoint: `127.0.0.1:${9090 + id}` })),
    { type: 'CreateTopic', name: 't', topicId: 'tid', internal: false, config: { 'retention.ms': 1000 }, partitions: [p(0, [1, 2]), p(1, [2, 3])] },
    { type: 'CreateTopic', name: 'gone', topicId: 'gid', internal: false, config: {}, partitions: [{ ...p(0, [3]), topic: 'gone' }] },
    { type: 'FenceBroker', brokerId: 3, brokerEpoch: 1, to: 'Fenced', reason: 'session-expired' },
    { type: 'RemoveTopic', name: 'gone', topicId: 'gid' },
    { type: 'PartitionChange', topic: 't', partition: 0, leader: 1, isr: [1, 2], leaderEpoch: 0, partitionEpoch: 1, replicas: [1, 2, 3], addingReplicas: [3], removingReplicas: [] },
    { type: 'AllocateProducerIds', brokerId: 1, brokerEpoch: 1, firstProducerId: 0, nextProducerId: 1000 },
    { type: 'AccessControlEntry', binding: { resourceType: 2, resourceName: 't', patternType: 3, principal: 'User:alice', host: '*', operation: 3, permission: 3 } },
    { type: 'BrokerConfig', resource: '', config: { 'log.retention.ms': '5000' } },
    { type: 'BrokerConfig', resource: '2', config: { 'compression.type': 'lz4' } },
    { type: 'ClientQuota', entity: { user: 'alice' }, quotas: { producer_byte_rate: 1024 } },
    { type: 'QuorumVoters', voters: [{ id: 1, node: 'c1' }, { id: 4, node: 'c4', directoryId: 'p5LbnVf1Ta6MbU9Zh0DpAQ' }] },
  ];
  return applyRecords(emptyMetadata(), records);
}

describe('actors/controller/metadata-snapshot', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'samsa-snapshot-'));
  });
  afterEach(async () => {
    await fsp.rm(dir, { recursive: true, force: true });
  });

  it('an image of the state, through JSON, is the same state', () => {
    const state = richState();
    expect(state.pendingDeletes.size).to.equal(1);
    expect(state.acls.size).to.equal(1);
    expect(state.clientQuotas.size).to.equal(1);
    expect(state.quorumVoters!.map((v) => v.id)).to.deep.equal([1, 4]);
    const back = fromImage(JSON.parse(JSON.stringify(toImage(state))));
    expect(back).to.deep.equal(state);
    // and it goes on applying records as the original would
    const next: MetadataRecord = { type: 'UnfenceBroker', brokerId: 3, brokerEpoch: 1 };
    expect(applyRecords(back, [next])).to.deep.equal(applyRecords(state, [next]));
  });

  it('feature levels and their epoch survive an image; an image written before samsa kept them has none (epoch 0)', () => {
    const state = applyRecords(emptyMetadata(), [
      { type: 'FeatureLevel', name: 'metadata.version', level: 22 },
      { type: 'FeatureLevel', name: 'group.version', level: 1 },
    ]);
    const back = fromImage(JSON.parse(JSON.stringify(toImage(state))));
    expect([back.features, back.featuresEpoch]).to.deep.equal([{ 'metadata.version': 22, 'group.version': 1 }, 2]);
    const { features: _f, featuresEpoch: _e, ...old } = toImage(state);
    const before = fromImage(JSON.parse(JSON.stringify(old)));
    expect([before.features, before.featuresEpoch]).to.deep.equal([{}, 0]);
  });

  it("an unregistered broker's retired epoch survives an image (registering again must go above it); an image written before brokers could be unregistered has none", () => {
    const state = applyRecords(richState(), [
      { type: 'PartitionChange', topic: 't', partition: 1, leader: 2, isr: [2], leaderEpoch: 0, partitionEpoch: 1 },
      { type: 'UnregisterBroker', brokerId: 3, brokerEpoch: 1 },
    ]);
    expect([...state.retiredBrokerEpochs]).to.deep.equal([[3, 1]]);
    const back = fromImage(JSON.parse(JSON.stringify(toImage(state))));
    expect(back).to.deep.equal(state);
    const again: MetadataRecord = { type: 'RegisterBroker', brokerId: 3, node: 'n3', rack: null, incarnationId: 'back', brokerEpoch: 1 };
    expect(() => applyRecords(back, [again])).to.throw(/must be above 1/);
    expect(isImage(JSON.parse(JSON.stringify(toImage(state))))).to.equal(true);
    expect(isImage({ ...toImage(state), retiredBrokerEpochs: [[3]] })).to.equal(false);
    expect(isImage({ ...toImage(state), retiredBrokerEpochs: [[3, 'x']] })).to.equal(false);
    const { retiredBrokerEpochs: _r, ...old } = toImage(richState());
    expect(fromImage(JSON.parse(JSON.stringify(old))).retiredBrokerEpochs.size).to.equal(0);
  });

  it('an image written before voter changes were kept (no quorumVoters) is the topology\'s set (null)', () => {
    const { quorumVoters: _gone, ...old } = toImage(emptyMetadata());
    expect(fromImage(JSON.parse(JSON.stringify(old))).quorumVoters).to.equal(null);
  });

  it('a snapshot file round-trips; a damaged one is refused', async () => {
    expect(await readSnapshot(dir)).to.equal(null);
    const image = toImage(richState());
    await writeSnapshot(dir, { index: 42, term: 3, image });
    expect(await readSnapshot(dir)).to.deep.equal({ index: 42, term: 3, image });
    expect(await fsp.readdir(dir)).to.deep.equal([METADATA_SNAPSHOT_FILE]);
    const file = path.join(dir, METADATA_SNAPSHOT_FILE);
    const text = await fsp.readFile(file, 'utf8');
    await fsp.writeFile(file, text.replace('"index":42', '"index":43'));
    let err: unknown;
    try {
      await readSnapshot(dir);
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(MetadataSnapshotError);
    expect((err as Error).message).to.match(/checksum mismatch/);
  });
});
