/**
 * DescribeConfigs over the Kafka protocol: a topic's configs with their sources (topic override,
 * the broker's config file, Kafka's default) and synonyms, a broker's own configs, the
 * configurationKeys filter, and errors for unknown topics, another broker and unknown resource
 * types. KafkaJS's admin.describeConfigs reads the same.
 */
import { expect } from 'chai';
import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { startKafkaCluster, type KafkaTestCluster } from '../../helpers/kafka-cluster.js';
import { KafkaCaller } from '../../helpers/raw-kafka.js';

describe('Kafka API: DescribeConfigs', function () {
  this.timeout(30_000);
  let c: KafkaTestCluster;
  let k: KafkaCaller;

  before(async () => {
    c = await startKafkaCluster({
      brokers: 2,
      brokerConfig: { 'log.retention.ms': 3_600_000, 'min.insync.replicas': 2 },
      topics: [{ name: 'configured', partitions: 1, replicationFactor: 2, config: { 'segment.bytes': 1_048_576, 'cleanup.policy': 'delete' } }],
    });
    k = await KafkaCaller.connect(c.bootstrap[0]!);
  });
  after(async () => {
    k?.end();
    await c?.stop();
  });

  const byName = (configs: { name: string }[]) => new Map(configs.map((x) => [x.name, x as any]));

  it('lists a topic\'s configs with where each value comes from (v1+ sources and synonyms, v3+ types)', async () => {
    const r = await k.call(ApiKeys.DescribeConfigs, 4, { resources: [{ resourceType: 2, resourceName: 'configured', configurationKeys: null }], includeSynonyms: true, includeDocumentation: false });
    const res = r.results[0];
    expect(res).to.include({ errorCode: ErrorCode.NONE, resourceType: 2, resourceName: 'configured' });
    const cfg = byName(res.configs);
    expect(cfg.get('segment.bytes')).to.include({ value: '1048576', configSource: 1, readOnly: false, isSensitive: false, configType: 3 });
    expect(cfg.get('segment.bytes').synonyms.map((s: { name: string; source: number }) => [s.name, s.source])).to.deep.equal([
      ['segment.bytes', 1],
      ['log.segment.bytes', 5],
    ]);
    expect(cfg.get('retention.ms')).to.include({ value: '3600000', configSource: 4, configType: 5 });
    expect(cfg.get('retention.ms').synonyms[0]).to.deep.equal({ name: 'log.retention.ms', value: '3600000', source: 4 });
    expect(cfg.get('min.insync.replicas')).to.include({ value: '2', configSource: 4 });
    expect(cfg.get('max.message.bytes')).to.include({ configSource: 5 });
    expect(cfg.get('cleanup.policy')).to.include({ value: 'delete', configSource: 1, configType: 7 });
    const v0 = await k.call(ApiKeys.DescribeConfigs, 0, { resources: [{ resourceType: 2, resourceName: 'configured', configurationKeys: ['retention.ms', 'max.message.bytes'] }] });
    expect(v0.results[0].configs.map((x: { name: string; isDefault: boolean }) => [x.name, x.isDefault])).to.deep.equal([
      ['retention.ms', false],
      ['max.message.bytes', true],
    ]);
  });

  it("lists this broker's configs, read-only; refuses another broker's, unknown topics and unknown resource types", async () => {
    const r = await k.call(ApiKeys.DescribeConfigs, 2, {
      resources: [
        { resourceType: 4, resourceName: '1', configurationKeys: null },
        { resourceType: 4, resourceName: '2', configurationKeys: null },
        { resourceType: 2, resourceName: 'missing', configurationKeys: null },
        { resourceType: 8, resourceName: '1', configurationKeys: null },
      ],
      includeSynonyms: false,
    });
    const [mine, other, missing, logger] = r.results;
    expect(mine.errorCode).to.equal(ErrorCode.NONE);
    const cfg = byName(mine.configs);
    expect(cfg.get('log.retention.ms')).to.include({ value: '3600000', configSource: 4, readOnly: true });
    expect(cfg.get('socket.request.max.bytes')).to.include({ value: String(100 * 1024 * 1024), configSource: 5 });
    expect(cfg.get('auto.create.topics.enable')).to.include({ value: 'true' });
    expect(other.errorCode).to.equal(ErrorCode.INVALID_REQUEST);
    expect(missing.errorCode).to.equal(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    expect(logger.errorCode).to.equal(ErrorCode.INVALID_REQUEST);
  });

  it('KafkaJS admin.describeConfigs reads a topic\'s configs', async () => {
    const kafka = new Kafka({ clientId: 'cfg', brokers: c.bootstrap, logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    try {
      const r = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: 'configured', configNames: ['segment.bytes', 'retention.ms'] }] });
      const entries = r.resources[0]!.configEntries;
      expect(entries.find((e) => e.configName === 'segment.bytes')!.configValue).to.equal('1048576');
      expect(entries.find((e) => e.configName === 'retention.ms')!.configValue).to.equal('3600000');
    } finally {
      await admin.disconnect();
    }
  });
});
