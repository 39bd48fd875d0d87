/**
 * UnregisterBroker (64, v0) over the Kafka protocol, what the Java admin's unregisterBroker and
 * `kafka-cluster.sh unregister` send: a broker that died is fenced, then unregistered; it is gone
 * from DescribeCluster (even with IncludeFencedBrokers) and from Metadata's brokers, its replica
 * still assigned; an id not registered is BROKER_ID_NOT_REGISTERED. A broker unregistered while
 * it runs, and the dead one restarted, register again. With an authorizer it needs ALTER on the
 * cluster.
 */
import { expect } from 'chai';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../../src/security/acl.js';
import { authorizedKafkaClusterPerSuite } from '../../helpers/authorized-kafka.js';
import { checkFor } from '../../helpers/check-for.js';
import { startKafkaCluster, type KafkaTestCluster } from '../../helpers/kafka-cluster.js';
import { KafkaCaller } from '../../helpers/raw-kafka.js';

const { NONE, BROKER_ID_NOT_REGISTERED, CLUSTER_AUTHORIZATION_FAILED } = ErrorCode;

const unregister = (k: KafkaCaller, brokerId: number): Promise<{ throttleTimeMs: number; errorCode: number; errorMessage: string | null }> => k.call(ApiKeys.UnregisterBroker, 0, { brokerId });

async function brokers(k: KafkaCaller, includeFencedBrokers: boolean): Promise<[number, boolean][]> {
  const r = await k.call(ApiKeys.DescribeCluster, 2, { includeClusterAuthorizedOperations: false, endpointType: 1, includeFencedBrokers });
  return (r.brokers as { brokerId: number; isFenced: boolean }[]).map((b): [number, boolean] => [b.brokerId, b.isFenced]).sort((a, b) => a[0] - b[0]);
}

describe('Kafka API: UnregisterBroker', function () {
  this.timeout(60_000);
  let c: KafkaTestCluster;
  let k: KafkaCaller;

  before(async () => {
    c = await startKafkaCluster({
      brokers: 3,
      kind: 'worker',
      brokerConfig: { 'broker.heartbeat.interval.ms': 200 },
      controllerConfig: { 'broker.session.timeout.ms': 1_500 },
    });
    k = await KafkaCaller.connect(c.bootstrap[0]!);
  });
  after(async () => {
    k?.end();
    await c?.stop();
  });

  it('ApiVersions advertises UnregisterBroker v0', async () => {
    const r = await k.call(ApiKeys.ApiVersions, 3, { clientSoftwareName: 'test', clientSoftwareVersion: '1' });
    expect(r.apiKeys.find((a: { apiKey: number }) => a.apiKey === ApiKeys.UnregisterBroker)).to.deep.include({ minVersion: 0, maxVersion: 0 });
  });

  it('an id never registered: BROKER_ID_NOT_REGISTERED with Kafka\'s message', async () => {
    expect(await unregister(k, 42)).to.deep.equal({ throttleTimeMs: 0, errorCode: BROKER_ID_NOT_REGISTERED, errorMessage: 'Broker ID 42 is not currently registered' });
  });

  it('a dead broker, fenced, is unregistered: gone from DescribeCluster even with the fenced, and from Metadata; its replica stays assigned', async () => {
    const created = await k.call(ApiKeys.CreateTopics, 7, {
      topics: [{ name: 'decommission', numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: [3, 1] }], configs: [] }],
      timeoutMs: 10_000,
      validateOnly: false,
    });
    expect(created.topics[0].errorCode).to.equal(NONE);
    await c.handle.killNode('b3');
    await checkFor(async () => JSON.stringify(await brokers(k, true)) === JSON.stringify([[1, false], [2, false], [3, true]]), 20_000, 100);

    expect(await unregister(k, 3)).to.deep.equal({ throttleTimeMs: 0, errorCode: NONE, errorMessage: null });
    await checkFor(async () => (await brokers(k, true)).length === 2, 10_000, 50);
    expect(await brokers(k, true)).to.deep.equal([
      [1, false],
      [2, false],
    ]);
    const md = await k.call(ApiKeys.Metadata, 12, { topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name: 'decommission' }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
    expect(md.brokers.map((b: { nodeId: number }) => b.nodeId).sort()).to.deep.equal([1, 2]);
    const p = md.topics[0].partitions[0];
    expect(p.leaderId).to.equal(1);
    expect(p.replicaNodes).to.deep.equal([3, 1]);
    expect(p.isrNodes).to.deep.equal([1]);
    // a second time: no longer registered
    expect((await unregister(k, 3)).errorCode).to.equal(BROKER_ID_NOT_REGISTERED);
  });

  it('the dead broker restarted registers again; one unregistered while it runs registers again on its next heartbeat', async () => {
    await c.handle.restartNode('b3');
    await checkFor(async () => (await brokers(k, false)).length === 3, 20_000, 100);
    const client = c.handle.samsa('unregister-test');
    const admin = client.admin();
    await admin.connect();
    try {
      const epochOf2 = async () => (await admin.describeCluster({ includeFencedBrokers: true })).brokers.find((b) => b.brokerId === 2)?.brokerEpoch;
      const before = (await epochOf2())!;
      expect((await unregister(k, 2)).errorCode).to.equal(NONE);
      // it heartbeats, is refused, and registers again above the epoch it had
      await checkFor(async () => ((await epochOf2()) ?? 0) > before, 20_000, 50);
      await checkFor(async () => JSON.stringify(await brokers(k, true)) === JSON.stringify([[1, false], [2, false], [3, false]]), 20_000, 50);
    } finally {
      await admin.disconnect();
      await client.close();
    }
  });
});

describe('Kafka API: UnregisterBroker with an authorizer', function () {
  this.timeout(30_000);
  const cluster = authorizedKafkaClusterPerSuite({ alice: 'alice-secret' }, { brokers: 1 });

  it('needs ALTER on the cluster: else CLUSTER_AUTHORIZATION_FAILED, the controller not asked', async () => {
    const root = await cluster().login('admin');
    const alice = await cluster().login('alice');
    expect(await unregister(alice, 1)).to.deep.equal({ throttleTimeMs: 0, errorCode: CLUSTER_AUTHORIZATION_FAILED, errorMessage: 'Cluster authorization failed.' });
    expect((await unregister(root, 9)).errorCode).to.equal(BROKER_ID_NOT_REGISTERED);
    await cluster().allow({ principal: 'User:alice', operation: AclOperation.ALTER, resourceType: ResourceType.CLUSTER, resourceName: CLUSTER_NAME });
    expect((await unregister(alice, 9)).errorCode).to.equal(BROKER_ID_NOT_REGISTERED);
  });
});
