/**
 * KIP-714's client metrics over the Kafka protocol: client metrics subscriptions as CLIENT_METRICS
 * config resources (IncrementalAlterConfigs and AlterConfigs through the controller, checked as
 * Kafka's ClientMetricsConfigs; DescribeConfigs; ListConfigResources), and a broker with a
 * telemetry receiver offering GetTelemetrySubscriptions and PushTelemetry: a client named by its
 * ApiVersions gets the subscriptions it matches and pushes metrics that reach the receiver actor;
 * a broker without one does not offer them. (librdkafka in the tests is older than its KIP-714
 * support and KafkaJS has none: the requests are sent by hand.)
 */
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import type { ClientTelemetryPush } from '../../../src/kafka/client-telemetry.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { defineActor } from '../../../src/runtime/actor-definition.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../../src/security/acl.js';
import { authorizedKafkaClusterPerSuite } from '../../helpers/authorized-kafka.js';
import { checkFor } from '../../helpers/check-for.js';
import { startKafkaCluster, type KafkaTestCluster } from '../../helpers/kafka-cluster.js';
import { KafkaCaller } from '../../helpers/raw-kafka.js';

const CLIENT_METRICS = 16;
const Op = { SET: 0, DELETE: 1, APPEND: 2, SUBTRACT: 3 };
const ZERO = 'AAAAAAAAAAAAAAAAAAAAAA';

type Change = { name: string; configOperation: number; value: string | null };

const alter = async (k: KafkaCaller, name: string, configs: Change[]) => {
  const r = await k.call(ApiKeys.IncrementalAlterConfigs, 1, { resources: [{ resourceType: CLIENT_METRICS, resourceName: name, configs }], validateOnly: false });
  return [r.responses[0].errorCode, r.responses[0].errorMessage];
};
const describeSub = async (k: KafkaCaller, name: string) => {
  const r = await k.call(ApiKeys.DescribeConfigs, 4, { resources: [{ resourceType: CLIENT_METRICS, resourceName: name, configurationKeys: null }], includeSynonyms: true, includeDocumentation: false });
  return r.results[0] as { errorCode: number; errorMessage: string | null; configs: { name: string; value: string; configSource: number; readOnly: boolean; synonyms: unknown[] }[] };
};
const valuesOf = async (k: KafkaCaller, name: string) => Object.fromEntries((await describeSub(k, name)).configs.map((c) => [c.name, c.value]));

/** The pushes the sink took, and what it answers next. */
const taken: ClientTelemetryPush[] = [];
const sink = defineActor<null, ClientTelemetryPush>({
  kind: 'telemetry-sink',
  init: () => null,
  supervision: 'restart',
  handlers: {
    ClientTelemetryPush(_s, m, ctx) {
      taken.push(m);
      ctx.reply({ type: 'ClientTelemetryTaken' });
    },
  },
});

describe('Kafka API: client metrics (KIP-714)', function () {
  this.timeout(60_000);
  let c: KafkaTestCluster;
  let k: KafkaCaller;

  before(async () => {
    c = await startKafkaCluster({ brokers: 1, brokerConfig: { 'client.telemetry.receiver': '/telemetry-sink', 'telemetry.max.bytes': 4096 } });
    c.handle.mainSystem.spawn(sink, { name: 'telemetry-sink', args: undefined });
    k = await KafkaCaller.connect(c.bootstrap[0]!);
  });
  after(async () => {
    k?.end();
    await c?.stop();
  });

  it('subscriptions are CLIENT_METRICS configs: set, described (CLIENT_METRICS_CONFIG), listed, appended to, and gone with their last key', async () => {
    expect(await alter(k, 'java-producers', [
      { name: 'metrics', configOperation: Op.SET, value: 'org.apache.kafka.producer.' },
      { name: 'interval.ms', configOperation: Op.SET, value: '1000' },
      { name: 'match', configOperation: Op.SET, value: 'client_software_name=apache-kafka-java' },
    ])).to.deep.equal([ErrorCode.NONE, null]);
    await checkFor(async () => (await valuesOf(k, 'java-producers'))['interval.ms'] === '1000', 10_000, 20);
    const d = await describeSub(k, 'java-producers');
    expect(d.configs.map((x) => [x.name, x.value, x.configSource, x.readOnly])).to.deep.equal([
      ['interval.ms', '1000', 7, false],
      ['match', 'client_software_name=apache-kafka-java', 7, false],
      ['metrics', 'org.apache.kafka.producer.', 7, false],
    ]);
    expect(await alter(k, 'java-producers', [{ name: 'metrics', configOperation: Op.APPEND, value: 'org.apache.kafka.consumer.' }])).to.deep.equal([ErrorCode.NONE, null]);
    await checkFor(async () => (await valuesOf(k, 'java-producers')).metrics === 'org.apache.kafka.producer.,org.apache.kafka.consumer.', 10_000, 20);
    const listed = await k.call(ApiKeys.ListClientMetricsResources, 1, { resourceTypes: [CLIENT_METRICS] });
    expect(listed.clientMetricsResources).to.deep.equal([{ name: 'java-producers', resourceType: CLIENT_METRICS }]);
    expect((await k.call(ApiKeys.ListClientMetricsResources, 0, {})).clientMetricsResources.map((r: { name: string }) => r.name)).to.deep.equal(['java-producers']);
    // another, then gone once its keys are
    expect(await alter(k, 'tmp', [{ name: 'metrics', configOperation: Op.SET, value: '*' }])).to.deep.equal([ErrorCode.NONE, null]);
    expect(await alter(k, 'tmp', [{ name: 'metrics', configOperation: Op.DELETE, value: null }])).to.deep.equal([ErrorCode.NONE, null]);
    expect((await describeSub(k, 'tmp')).configs).to.deep.equal([]);
    // AlterConfigs (the whole set) takes them too
    const legacy = await k.call(ApiKeys.AlterConfigs, 2, { resources: [{ resourceType: CLIENT_METRICS, resourceName: 'legacy', configs: [{ name: 'interval.ms', value: '60000' }] }], validateOnly: false });
    expect(legacy.responses[0].errorCode).to.equal(ErrorCode.NONE);
    await checkFor(async () => (await valuesOf(k, 'legacy'))['interval.ms'] === '60000', 10_000, 20);
  });

  it("refuses what Kafka's ClientMetricsConfigs refuses, per resource", async () => {
    const cases: [Change[], number, string][] = [
      [[{ name: 'interval.ms', configOperation: Op.SET, value: '50' }], ErrorCode.INVALID_REQUEST, 'Invalid value 50 for interval.ms, interval must be between 100 and 3600000 (1 hour)'],
      [[{ name: 'interval.ms', configOperation: Op.SET, value: 'often' }], ErrorCode.INVALID_CONFIG, 'Invalid value often for configuration interval.ms: Not a number of type INT'],
      [[{ name: 'colour', configOperation: Op.SET, value: 'red' }], ErrorCode.INVALID_REQUEST, 'Unknown client metrics configuration: colour'],
      [[{ name: 'match', configOperation: Op.SET, value: 'client_colour=red' }], ErrorCode.INVALID_CONFIG, 'Illegal client matching pattern: client_colour=red'],
      [[{ name: 'match', configOperation: Op.SET, value: 'client_id=(' }], ErrorCode.INVALID_CONFIG, 'Illegal client matching pattern: client_id=('],
      [[{ name: 'interval.ms', configOperation: Op.APPEND, value: '5' }], ErrorCode.INVALID_CONFIG, 'interval.ms is not a list config: APPEND and SUBTRACT apply to metrics, match'],
    ];
    for (const [configs, code, message] of cases) expect(await alter(k, 'bad', configs), configs[0]!.value ?? '').to.deep.equal([code, message]);
    const empty = await describeSub(k, '');
    expect([empty.errorCode, empty.errorMessage]).to.deep.equal([ErrorCode.INVALID_REQUEST, 'Client metrics subscription name must not be empty']);
    expect(await alter(k, '', [{ name: 'metrics', configOperation: Op.SET, value: '*' }])).to.deep.equal([ErrorCode.INVALID_REQUEST, "Subscription name can't be empty"]);
  });

  it('a broker with a telemetry receiver offers GetTelemetrySubscriptions and PushTelemetry; a client gets what it matches and its pushes reach the receiver', async () => {
    const versions = await k.call(ApiKeys.ApiVersions, 3, { clientSoftwareName: 'apache-kafka-java', clientSoftwareVersion: '3.9.0' });
    const ranges = new Map((versions.apiKeys as { apiKey: number; minVersion: number; maxVersion: number }[]).map((a) => [a.apiKey, [a.minVersion, a.maxVersion]]));
    expect([ranges.get(71), ranges.get(72)]).to.deep.equal([[0, 0], [0, 0]]);
    await checkFor(async () => (await valuesOf(k, 'java-producers')).metrics?.includes('consumer') === true, 10_000, 20);
    const sub = await k.call(ApiKeys.GetTelemetrySubscriptions, 0, { clientInstanceId: ZERO });
    expect(sub.errorCode).to.equal(ErrorCode.NONE);
    expect(sub.clientInstanceId).to.not.equal(ZERO);
    expect(sub.requestedMetrics).to.deep.equal(['org.apache.kafka.consumer.', 'org.apache.kafka.producer.']);
    expect([sub.pushIntervalMs, sub.telemetryMaxBytes, sub.deltaTemporality, sub.acceptedCompressionTypes]).to.deep.equal([1000, 4096, true, [4, 3, 1, 2]]);
    // asking again at once is too soon
    expect((await k.call(ApiKeys.GetTelemetrySubscriptions, 0, { clientInstanceId: sub.clientInstanceId })).errorCode).to.equal(ErrorCode.THROTTLING_QUOTA_EXCEEDED);
    const metrics = Buffer.from('an OTLP MetricsData payload, as bytes');
    const pushed = await k.call(ApiKeys.PushTelemetry, 0, { clientInstanceId: sub.clientInstanceId, subscriptionId: sub.subscriptionId, terminating: false, compressionType: 1, metrics: gzipSync(metrics) });
    expect(pushed.errorCode).to.equal(ErrorCode.NONE);
    await checkFor(() => taken.length === 1, 5_000, 10);
    expect(taken[0]).to.deep.include({ brokerId: 1, clientInstanceId: sub.clientInstanceId, clientId: 'raw-test', clientSoftwareName: 'apache-kafka-java', clientSoftwareVersion: '3.9.0', clientSourceAddress: '127.0.0.1', subscriptionId: sub.subscriptionId, terminating: false, principal: 'User:ANONYMOUS' });
    expect(Buffer.from(taken[0]!.metrics).toString()).to.equal(metrics.toString());
    expect(taken[0]!.clientSourcePort).to.be.a('number');
    // too soon, then too big, then a stale subscription id
    expect((await k.call(ApiKeys.PushTelemetry, 0, { clientInstanceId: sub.clientInstanceId, subscriptionId: sub.subscriptionId, terminating: false, compressionType: 0, metrics: Buffer.from('x') })).errorCode).to.equal(ErrorCode.THROTTLING_QUOTA_EXCEEDED);
    const later = Date.now() + 1000;
    await checkFor(() => Date.now() >= later, 5_000, 50);
    expect((await k.call(ApiKeys.PushTelemetry, 0, { clientInstanceId: sub.clientInstanceId, subscriptionId: sub.subscriptionId, terminating: false, compressionType: 0, metrics: Buffer.alloc(4097) })).errorCode).to.equal(ErrorCode.TELEMETRY_TOO_LARGE);
    // a terminating push may come at once; nothing after it
    expect((await k.call(ApiKeys.PushTelemetry, 0, { clientInstanceId: sub.clientInstanceId, subscriptionId: sub.subscriptionId, terminating: true, compressionType: 0, metrics: Buffer.from('bye') })).errorCode).to.equal(ErrorCode.NONE);
    await checkFor(() => taken.length === 2, 5_000, 10);
    expect(taken[1]!.terminating).to.equal(true);
    expect((await k.call(ApiKeys.PushTelemetry, 0, { clientInstanceId: sub.clientInstanceId, subscriptionId: sub.subscriptionId, terminating: false, compressionType: 0, metrics: Buffer.from('x') })).errorCode).to.equal(ErrorCode.INVALID_REQUEST);
  });

  it("a client of another software: only the subscription for every client applies ('legacy', no match, no metrics): no metrics, at its interval", async () => {
    const other = await KafkaCaller.connect(c.bootstrap[0]!, 'rd');
    try {
      await other.call(ApiKeys.ApiVersions, 3, { clientSoftwareName: 'librdkafka', clientSoftwareVersion: '2.6.0' });
      const sub = await other.call(ApiKeys.GetTelemetrySubscriptions, 0, { clientInstanceId: ZERO });
      expect([sub.errorCode, sub.requestedMetrics, sub.pushIntervalMs]).to.deep.equal([ErrorCode.NONE, [], 60_000]);
    } finally {
      other.end();
    }
  });
});

describe('Kafka API: client metrics without a telemetry receiver', function () {
  this.timeout(30_000);
  let c: KafkaTestCluster;

  before(async () => {
    c = await startKafkaCluster({ brokers: 1 });
  });
  after(async () => {
    await c?.stop();
  });

  it('the broker does not offer GetTelemetrySubscriptions nor PushTelemetry, as Kafka without a ClientTelemetry reporter; subscriptions can still be kept', async () => {
    const k = await KafkaCaller.connect(c.bootstrap[0]!);
    try {
      const versions = await k.call(ApiKeys.ApiVersions, 3, { clientSoftwareName: 'apache-kafka-java', clientSoftwareVersion: '3.9.0' });
      const keys = (versions.apiKeys as { apiKey: number }[]).map((a) => a.apiKey);
      expect(keys).to.not.include(71);
      expect(keys).to.not.include(72);
      expect(await alter(k, 'kept', [{ name: 'metrics', configOperation: Op.SET, value: '*' }])).to.deep.equal([ErrorCode.NONE, null]);
    } finally {
      k.end();
    }
  });
});

describe('Kafka API: client metrics with an authorizer', function () {
  this.timeout(30_000);
  const cluster = authorizedKafkaClusterPerSuite({ alice: 'alice-secret' }, { brokers: 1 });

  it('describing needs DESCRIBE_CONFIGS on the cluster, changing ALTER_CONFIGS: else CLUSTER_AUTHORIZATION_FAILED', async () => {
    const alice = await cluster().login('alice');
    try {
      expect((await describeSub(alice, 's')).errorCode).to.equal(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
      expect((await alter(alice, 's', [{ name: 'metrics', configOperation: Op.SET, value: '*' }]))[0]).to.equal(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
      await cluster().allow({ principal: 'User:alice', operation: AclOperation.ALTER_CONFIGS, resourceType: ResourceType.CLUSTER, resourceName: CLUSTER_NAME });
      await cluster().allow({ principal: 'User:alice', operation: AclOperation.DESCRIBE_CONFIGS, resourceType: ResourceType.CLUSTER, resourceName: CLUSTER_NAME });
      expect(await alter(alice, 's', [{ name: 'metrics', configOperation: Op.SET, value: '*' }])).to.deep.equal([ErrorCode.NONE, null]);
      await checkFor(async () => (await valuesOf(alice, 's')).metrics === '*', 10_000, 20);
    } finally {
      alice.end();
    }
  });
});
