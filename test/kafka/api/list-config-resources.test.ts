/**
 * ListConfigResources over the Kafka protocol (api key 74): v0 (ListClientMetricsResources) lists
 * client metrics subscriptions, of which samsa has none; v1 (KIP-1142) lists the types asked for,
 * or all samsa has configs for: groups with configs of their own (whether the group exists or
 * not), the brokers, the brokers' loggers, the topics, in Kafka's order and each type sorted; a
 * type Kafka does not define is UNSUPPORTED_VERSION; with an authorizer
 * the caller needs DESCRIBE_CONFIGS on the cluster.
 */
import { expect } from 'chai';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../../src/security/acl.js';
import { authorizedKafkaClusterPerSuite } from '../../helpers/authorized-kafka.js';
import { checkFor } from '../../helpers/check-for.js';
import { startKafkaCluster, type KafkaTestCluster } from '../../helpers/kafka-cluster.js';
import { KafkaCaller } from '../../helpers/raw-kafka.js';

const GROUP = 32;
const TOPIC = 2;
const BROKER = 4;
const BROKER_LOGGER = 8;

type Listed = { errorCode: number; clientMetricsResources: { name: string; resourceType: number }[] };
const list = async (k: KafkaCaller, version: number, resourceTypes: number[] = []): Promise<Listed> => (await k.call(ApiKeys.ListClientMetricsResources, version, { resourceTypes })) as Listed;
/** What the cluster below lists besides its topics, in Kafka's order: its groups with configs, brokers and brokers' loggers. */
const ALL_BUT_TOPICS = [
  [GROUP, 'lc-g1'],
  [GROUP, 'lc-g2'],
  [BROKER, '1'],
  [BROKER, '2'],
  [BROKER_LOGGER, '1'],
  [BROKER_LOGGER, '2'],
];
const pairs = (r: Listed) => r.clientMetricsResources.map((x) => [x.resourceType, x.name]);

describe('Kafka API: ListConfigResources', function () {
  this.timeout(60_000);
  let c: KafkaTestCluster;
  let k: KafkaCaller;

  before(async () => {
    c = await startKafkaCluster({ brokers: 2, topics: [{ name: 'lc-b', partitions: 1, replicationFactor: 1 }, { name: 'lc-a', partitions: 1, replicationFactor: 1 }] });
    k = await KafkaCaller.connect(c.bootstrap[0]!);
    // group configs, of a group that never existed too (KIP-1142 lists those)
    const r = await k.call(ApiKeys.IncrementalAlterConfigs, 1, {
      resources: ['lc-g2', 'lc-g1'].map((g) => ({ resourceType: GROUP, resourceName: g, configs: [{ name: 'consumer.session.timeout.ms', configOperation: 0, value: '50000' }] })),
      validateOnly: false,
    });
    expect(r.responses.map((x: { errorCode: number }) => x.errorCode)).to.deep.equal([0, 0]);
  });
  after(async () => {
    k?.end();
    await c?.stop();
  });

  it('v1 without types: the groups with configs, the brokers, their loggers, then the topics, each sorted', async () => {
    await checkFor(async () => pairs(await list(k, 1)).some(([t]) => t === GROUP), 10_000, 20);
    const r = await list(k, 1);
    expect(r.errorCode).to.equal(ErrorCode.NONE);
    const got = pairs(r);
    const topics = got.filter(([t]) => t === TOPIC).map(([, n]) => n);
    expect(got.filter(([t]) => t !== TOPIC)).to.deep.equal(ALL_BUT_TOPICS);
    expect(topics).to.include.members(['lc-a', 'lc-b']);
    expect(topics).to.deep.equal([...topics].sort());
    expect(got.findIndex(([t]) => t === TOPIC)).to.equal(ALL_BUT_TOPICS.length);
  });

  it('v1 with types: those alone, in the same order whatever order they are asked in; client metrics: none', async () => {
    expect(pairs(await list(k, 1, [BROKER_LOGGER, BROKER, GROUP]))).to.deep.equal(ALL_BUT_TOPICS);
    expect(await list(k, 1, [16])).to.deep.include({ errorCode: ErrorCode.NONE, clientMetricsResources: [] });
  });

  it('v0 (ListClientMetricsResources): the client metrics subscriptions, none here', async () => {
    expect(await list(k, 0)).to.deep.include({ errorCode: ErrorCode.NONE, clientMetricsResources: [] });
  });

  it('a type Kafka does not define: UNSUPPORTED_VERSION, nothing listed', async () => {
    for (const types of [[64], [TOPIC, 1]]) expect(await list(k, 1, types)).to.deep.include({ errorCode: ErrorCode.UNSUPPORTED_VERSION, clientMetricsResources: [] });
  });
});

describe('Kafka API: ListConfigResources with an authorizer', function () {
  this.timeout(30_000);
  const cluster = authorizedKafkaClusterPerSuite({ alice: 'alice-secret' }, { brokers: 1 });

  it('needs DESCRIBE_CONFIGS on the cluster: else CLUSTER_AUTHORIZATION_FAILED and nothing listed', async () => {
    const [root, alice] = await Promise.all([cluster().login('admin'), cluster().login('alice')]);
    try {
      expect(pairs(await list(root, 1, [BROKER]))).to.deep.equal([[BROKER, '1']]);
      expect(await list(alice, 1, [BROKER])).to.deep.include({ errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, clientMetricsResources: [] });
      await cluster().allow({ principal: 'User:alice', operation: AclOperation.DESCRIBE_CONFIGS, resourceType: ResourceType.CLUSTER, resourceName: CLUSTER_NAME });
      expect(pairs(await list(alice, 1, [BROKER]))).to.deep.equal([[BROKER, '1']]);
    } finally {
      root.end();
      alice.end();
    }
  });
});
