/**
 * KIP-951 leader discovery over the Kafka protocol, on two brokers with single-replica
 * partitions (so the broker that is not a partition's leader hosts none of it): Produce v10 (and
 * v11) to the wrong broker names the partition's leader and epoch and the response that leader's
 * endpoint; Fetch v12 names the leader and epoch; older versions and partitions answered without
 * error carry no hint; with the hint the client reaches the leader without asking for metadata.
 */
import { expect } from 'chai';
import { needsLeaderHint } from '../../../src/kafka/api/leader-hints.js';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { encodeRecordBatch } from '../../../src/protocol/record-batch.js';
import { checkFor } from '../../helpers/check-for.js';
import { startKafkaCluster, type KafkaTestCluster } from '../../helpers/kafka-cluster.js';
import { KafkaCaller, consumerFetchBody } from '../../helpers/raw-kafka.js';

const TOPIC = 'hinted';

describe('Kafka API: leader hints on NOT_LEADER_OR_FOLLOWER (KIP-951)', function () {
  this.timeout(60_000);
  let c: KafkaTestCluster;
  const callers = new Map<number, KafkaCaller>();
  const endpoints = new Map<number, { host: string; port: number }>();
  let leader: { id: number; epoch: number };
  let other: number;

  before(async () => {
    c = await startKafkaCluster({ brokers: 2, topics: [{ name: TOPIC, partitions: 1, replicationFactor: 1 }] });
    const first = await KafkaCaller.connect(c.bootstrap[0]!);
    callers.set(-1, first);
    const md = await checkFor(async () => {
      const r = await first.call(ApiKeys.Metadata, 9, { topics: [{ name: TOPIC }], allowAutoTopicCreation: false });
      return r.topics[0].partitions[0]?.leaderId >= 0 ? r : null;
    }, 15_000, 50);
    for (const b of md.brokers as { nodeId: number; host: string; port: number }[]) {
      endpoints.set(b.nodeId, { host: b.host, port: b.port });
      callers.set(b.nodeId, await KafkaCaller.connect(`${b.host}:${b.port}`));
    }
    const p = md.topics[0].partitions[0];
    leader = { id: p.leaderId, epoch: p.leaderEpoch };
    other = [...endpoints.keys()].find((id) => id !== leader.id)!;
  });
  after(async () => {
    for (const k of callers.values()) k.end();
    await c?.stop();
  });

  const produce = (to: number, version: number) =>
    callers.get(to)!.call(ApiKeys.Produce, version, {
      transactionalId: null,
      acks: -1,
      timeoutMs: 5_000,
      topicData: [{ name: TOPIC, partitionData: [{ index: 0, records: encodeRecordBatch({ records: [{ value: Buffer.from('v'), timestamp: Date.now() }] }) }] }],
    });

  it('tells which answers carry a hint', () => {
    expect(needsLeaderHint(ErrorCode.NOT_LEADER_OR_FOLLOWER)).to.equal(true);
    expect(needsLeaderHint(ErrorCode.FENCED_LEADER_EPOCH)).to.equal(true);
    expect(needsLeaderHint(ErrorCode.NONE)).to.equal(false);
    expect(needsLeaderHint(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)).to.equal(false);
  });

  it('ApiVersions advertises Produce v3-13', async () => {
    const r = await callers.get(-1)!.call(ApiKeys.ApiVersions, 3, { clientSoftwareName: 'test', clientSoftwareVersion: '1' });
    expect(r.apiKeys.find((a: { apiKey: number }) => a.apiKey === ApiKeys.Produce)).to.deep.include({ minVersion: 3, maxVersion: 13 });
  });

  it('Produce v10 to the wrong broker names the leader, its epoch and its endpoint; the leader then takes the records', async () => {
    const r = await produce(other, 10);
    const p = r.responses[0].partitionResponses[0];
    expect(p.errorCode).to.equal(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    expect(p.currentLeader).to.deep.equal({ leaderId: leader.id, leaderEpoch: leader.epoch });
    expect(r.nodeEndpoints).to.deep.equal([{ nodeId: leader.id, ...endpoints.get(leader.id)!, rack: null }]);
    // the hint is enough to reach the leader
    const hinted = r.nodeEndpoints[0] as { nodeId: number };
    expect((await produce(hinted.nodeId, 10)).responses[0].partitionResponses[0]).to.deep.include({ errorCode: ErrorCode.NONE });
  });

  it('Produce v11 (KIP-890) carries the same hint', async () => {
    const r = await produce(other, 11);
    expect(r.responses[0].partitionResponses[0]).to.deep.include({ errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER, currentLeader: { leaderId: leader.id, leaderEpoch: leader.epoch } });
    expect(r.nodeEndpoints).to.deep.equal([{ nodeId: leader.id, ...endpoints.get(leader.id)!, rack: null }]);
  });

  it('a partition answered without error, and Produce v9, carry no hint', async () => {
    const ok = await produce(leader.id, 10);
    expect(ok.responses[0].partitionResponses[0].errorCode).to.equal(ErrorCode.NONE);
    expect(ok.responses[0].partitionResponses[0].currentLeader).to.deep.equal({ leaderId: -1, leaderEpoch: -1 });
    expect(ok.nodeEndpoints).to.deep.equal([]);
    const v9 = await produce(other, 9);
    expect(v9.responses[0].partitionResponses[0].errorCode).to.equal(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    // (a field a version does not have decodes as its default: no leader)
    expect(v9.responses[0].partitionResponses[0].currentLeader).to.deep.equal({ leaderId: -1, leaderEpoch: -1 });
  });

  it('Fetch v12 from the wrong broker names the leader and its epoch', async () => {
    const r = await callers.get(other)!.call(ApiKeys.Fetch, 12, consumerFetchBody(TOPIC, 0, 0));
    const p = r.responses[0].partitions[0];
    expect(p.errorCode).to.equal(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    expect(p.currentLeader).to.deep.equal({ leaderId: leader.id, leaderEpoch: leader.epoch });
    const fromLeader = await callers.get(leader.id)!.call(ApiKeys.Fetch, 12, consumerFetchBody(TOPIC, 0, 0));
    expect(fromLeader.responses[0].partitions[0].errorCode).to.equal(ErrorCode.NONE);
    expect(fromLeader.responses[0].partitions[0].currentLeader).to.deep.equal({ leaderId: -1, leaderEpoch: -1 });
  });
});
