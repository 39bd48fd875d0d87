/**
 * DescribeConfigs, AlterConfigs and IncrementalAlterConfigs over the Kafka protocol: a topic's configs with their sources (topic override,
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
import { checkFor } from '../../helpers/check-for.js';
import { replicaPath } from '../../../src/protocol/cluster.js';
import type { ReplicaDescription } from '../../../actors/partition-replica/messages.js';
import { encodeRecordBatch } from '../../../src/protocol/record-batch.js';

describe('Kafka API: DescribeConfigs', function () {
  this.timeout(30_000);
  let c: KafkaTestCluster;
  let k: KafkaCaller;

  before(async () => {
    c = await startKafkaCluster({
      brokers: 2,
      brokerConfig: { 'log.retention.ms': 3_600_000, 'min.insync.replicas': 2, 'compression.type': 'lz4', 'compression.lz4.level': 12 },
      // with eligible leader replicas on (a new cluster), min.insync.replicas is cluster-wide: the controller writes its own as the default (KIP-966)
      controllerConfig: { 'min.insync.replicas': 2 },
      topics: [{ name: 'configured', partitions: 1, replicationFactor: 2, config: { 'segment.bytes': 1_048_576, 'cleanup.policy': 'delete', 'compression.zstd.level': 19 } }],
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
    expect(cfg.get('min.insync.replicas')).to.include({ value: '2', configSource: 3 });
    expect(cfg.get('compression.type')).to.include({ value: 'lz4', configSource: 4, configType: 2 });
    expect(cfg.get('compression.type').synonyms.map((s: { name: string; value: string; source: number }) => [s.name, s.value, s.source])).to.deep.equal([
      ['compression.type', 'lz4', 4],
      ['compression.type', 'producer', 5],
    ]);
    // KIP-390's levels: the topic's own, the broker's, Kafka's default
    const synonymsOf = (name: string) => cfg.get(name).synonyms.map((s: { name: string; value: string; source: number }) => [s.name, s.value, s.source]);
    expect(cfg.get('compression.zstd.level')).to.include({ value: '19', configSource: 1, configType: 3 });
    expect(synonymsOf('compression.zstd.level')).to.deep.equal([
      ['compression.zstd.level', '19', 1],
      ['compression.zstd.level', '3', 5],
    ]);
    expect(cfg.get('compression.lz4.level')).to.include({ value: '12', configSource: 4, configType: 3 });
    expect(synonymsOf('compression.lz4.level')).to.deep.equal([
      ['compression.lz4.level', '12', 4],
      ['compression.lz4.level', '9', 5],
    ]);
    expect(cfg.get('compression.gzip.level')).to.include({ value: '-1', configSource: 5, configType: 3 });
    expect(cfg.get('max.message.bytes')).to.include({ configSource: 5 });
    expect(cfg.get('cleanup.policy')).to.include({ value: 'delete', configSource: 1, configType: 7 });
    expect(cfg.get('cleanup.policy').synonyms.map((s: { name: string; source: number }) => [s.name, s.source])).to.deep.equal([
      ['cleanup.policy', 1],
      ['log.cleanup.policy', 5],
    ]);
    expect(cfg.get('min.cleanable.dirty.ratio')).to.include({ value: '0.5', configSource: 5, configType: 6 });
    expect(cfg.get('min.cleanable.dirty.ratio').synonyms[0]).to.deep.equal({ name: 'log.cleaner.min.cleanable.ratio', value: '0.5', source: 5 });
    expect(cfg.get('delete.retention.ms')).to.include({ value: '86400000', configSource: 5, configType: 5 });
    expect(cfg.get('min.compaction.lag.ms')).to.include({ value: '0', configType: 5 });
    expect(cfg.get('max.compaction.lag.ms')).to.include({ value: '9223372036854775807', configType: 5 });
    const v0 = await k.call(ApiKeys.DescribeConfigs, 0, { resources: [{ resourceType: 2, resourceName: 'configured', configurationKeys: ['retention.ms', 'max.message.bytes'] }] });
    expect(v0.results[0].configs.map((x: { name: string; isDefault: boolean }) => [x.name, x.isDefault])).to.deep.equal([
      ['retention.ms', false],
      ['max.message.bytes', true],
    ]);
  });

  it("lists this broker's configs (read-only but for the dynamic keys); refuses another broker's, unknown topics and unknown resource types", async () => {
    const r = await k.call(ApiKeys.DescribeConfigs, 2, {
      resources: [
        { resourceType: 4, resourceName: '1', configurationKeys: null },
        { resourceType: 4, resourceName: '2', configurationKeys: null },
        { resourceType: 2, resourceName: 'missing', configurationKeys: null },
        { resourceType: 64, resourceName: '1', configurationKeys: null },
      ],
      includeSynonyms: false,
    });
    const [mine, other, missing, unknownType] = r.results;
    expect(mine.errorCode).to.equal(ErrorCode.NONE);
    const cfg = byName(mine.configs);
    expect(cfg.get('log.retention.ms')).to.include({ value: '3600000', configSource: 4, readOnly: false });
    expect(cfg.get('socket.request.max.bytes')).to.include({ value: String(100 * 1024 * 1024), configSource: 5, readOnly: true });
    expect(cfg.get('auto.create.topics.enable')).to.include({ value: 'true' });
    expect(cfg.get('compression.type')).to.include({ value: 'lz4', configSource: 4, readOnly: false });
    expect(cfg.get('log.cleaner.enable')).to.include({ value: 'true', configSource: 5 });
    expect(cfg.get('log.cleaner.backoff.ms')).to.include({ value: '15000', configSource: 5 });
    expect(cfg.get('log.cleaner.dedupe.buffer.size')).to.include({ value: String(128 * 1024 * 1024) });
    expect(cfg.get('log.cleanup.policy')).to.include({ value: 'delete' });
    expect(cfg.get('log.cleaner.min.cleanable.ratio')).to.include({ value: '0.5' });
    expect(other.errorCode).to.equal(ErrorCode.INVALID_REQUEST);
    expect(missing.errorCode).to.equal(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    expect(unknownType.errorCode).to.equal(ErrorCode.INVALID_REQUEST);
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
  it('IncrementalAlterConfigs sets and deletes topic overrides; every replica and its log take them; DescribeConfigs shows them', async () => {
    await k.call(ApiKeys.CreateTopics, 5, { topics: [{ name: 'tuned', numPartitions: 1, replicationFactor: 2, assignments: [], configs: [{ name: 'retention.ms', value: '7200000' }] }], timeoutMs: 5_000 });
    const r = await k.call(ApiKeys.IncrementalAlterConfigs, 1, {
      resources: [
        { resourceType: 2, resourceName: 'tuned', configs: [{ name: 'min.insync.replicas', configOperation: 0, value: '2' }, { name: 'retention.ms', configOperation: 1, value: null }, { name: 'segment.ms', configOperation: 0, value: '60000' }] },
        { resourceType: 2, resourceName: 'missing', configs: [{ name: 'retention.ms', configOperation: 0, value: '1' }] },
        { resourceType: 2, resourceName: 'tuned', configs: [{ name: 'retention.ms', configOperation: 2, value: 'x' }] },
        { resourceType: 4, resourceName: '1', configs: [{ name: 'replica.fetch.max.bytes', configOperation: 0, value: '1' }] },
      ],
      validateOnly: false,
    });
    expect(r.responses.map((x: { errorCode: number }) => x.errorCode)).to.deep.equal([ErrorCode.NONE, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.INVALID_CONFIG, ErrorCode.INVALID_REQUEST]);
    const d = await k.call(ApiKeys.DescribeConfigs, 4, { resources: [{ resourceType: 2, resourceName: 'tuned', configurationKeys: ['min.insync.replicas', 'retention.ms', 'segment.ms'] }], includeSynonyms: false, includeDocumentation: false });
    const cfg = byName(d.results[0].configs);
    expect(cfg.get('min.insync.replicas')).to.include({ value: '2', configSource: 1 });
    expect(cfg.get('retention.ms')).to.include({ value: '3600000', configSource: 4 }); // back to the broker's value
    expect(cfg.get('segment.ms')).to.include({ value: '60000', configSource: 1 });
    // each replica (leader and follower) and its log took the change
    const md = await c.handle.mainSystem.ask({ node: 'main', path: '/controller' }, { type: 'Metadata', topics: ['tuned'] });
    const replicas = (md as unknown as { metadata: { topics: { partitions: { replicas: number[] }[] }[] } }).metadata.topics[0]!.partitions[0]!.replicas;
    await checkFor(async () => {
      for (const b of replicas) {
        const rd = (await c.handle.mainSystem.ask({ node: 'main', path: replicaPath(b, 'tuned', 0) }, { type: 'DescribeReplica' })) as unknown as ReplicaDescription;
        if (Number(rd.config['min.insync.replicas']) !== 2 || 'retention.ms' in rd.config) return false;
        if (rd.logConfig['segment.ms'] !== '60000' || rd.logConfig['retention.ms'] !== '3600000') return false;
      }
      return true;
    });
    // min.insync.replicas 2 of 2 replicas: acks=all produce still works with both in sync
    const records = encodeRecordBatch({ records: [{ value: Buffer.from('x'), timestamp: Date.now() }] });
    const leaderId = (await k.call(ApiKeys.Metadata, 9, { topics: [{ name: 'tuned' }], allowAutoTopicCreation: false })).topics[0].partitions[0].leaderId;
    const leader = await KafkaCaller.connect(c.bootstrap[leaderId - 1]!);
    const p = await leader.call(ApiKeys.Produce, 9, { transactionalId: null, acks: -1, timeoutMs: 5_000, topicData: [{ name: 'tuned', partitionData: [{ index: 0, records }] }] });
    leader.end();
    expect(p.responses[0].partitionResponses[0].errorCode).to.equal(ErrorCode.NONE);
  });

  it('AlterConfigs replaces a topic\'s overrides; validateOnly changes nothing; KafkaJS admin.alterConfigs works', async () => {
    const dry = await k.call(ApiKeys.AlterConfigs, 1, { resources: [{ resourceType: 2, resourceName: 'configured', configs: [{ name: 'retention.ms', value: '5000' }] }], validateOnly: true });
    expect(dry.responses[0].errorCode).to.equal(ErrorCode.NONE);
    const describe = async () => byName((await k.call(ApiKeys.DescribeConfigs, 1, { resources: [{ resourceType: 2, resourceName: 'configured', configurationKeys: ['retention.ms', 'segment.bytes'] }], includeSynonyms: false })).results[0].configs);
    expect((await describe()).get('retention.ms')).to.include({ configSource: 4 });
    const bad = await k.call(ApiKeys.AlterConfigs, 0, { resources: [{ resourceType: 2, resourceName: 'configured', configs: [{ name: 'retention.ms', value: 'soon' }] }], validateOnly: false });
    expect(bad.responses[0].errorCode).to.equal(ErrorCode.INVALID_CONFIG);
    const kafka = new Kafka({ clientId: 'alter', brokers: c.bootstrap, logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    try {
      await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: 'configured', configEntries: [{ name: 'retention.ms', value: '5000' }] }] });
    } finally {
      await admin.disconnect();
    }
    const after = await describe();
    expect(after.get('retention.ms')).to.include({ value: '5000', configSource: 1 });
    // the whole set was replaced: the segment.bytes override is gone
    expect(after.get('segment.bytes')).to.include({ configSource: 5 });
  });
});
