/**
 * Metadata, CreateTopics and DeleteTopics over the Kafka protocol: which topics a request means
 * (v0's empty list vs v1+'s null), a live controller id, listener addresses, auto-creation (allowed
 * by the request and by auto.create.topics.enable), and topic administration with Kafka's errors.
 */
import { expect } from 'chai';
import { TOPIC_CONFIG_KEYS } from '../../../actors/controller/topic-validation.js';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { startKafkaCluster, type KafkaTestCluster } from '../../helpers/kafka-cluster.js';
import { KafkaCaller } from '../../helpers/raw-kafka.js';
import { checkFor } from '../../helpers/check-for.js';

describe('Kafka API: Metadata, CreateTopics, DeleteTopics', function () {
  this.timeout(30_000);
  let c: KafkaTestCluster;
  let k: KafkaCaller;

  before(async () => {
    c = await startKafkaCluster({ brokers: 3, topics: [{ name: 'present', partitions: 2, replicationFactor: 3 }] });
    k = await KafkaCaller.connect(c.bootstrap[2]!);
  });
  after(async () => {
    k?.end();
    await c?.stop();
  });

  const names = (md: { topics: { name: string }[] }) => md.topics.map((t) => t.name);

  it('lists the brokers at their Kafka addresses with a live controller id, v0 to v9', async () => {
    for (const v of [0, 1, 4, 7, 9]) {
      const md = await k.call(ApiKeys.Metadata, v, { topics: v === 0 ? [] : null, allowAutoTopicCreation: false });
      expect(md.brokers.map((b: { host: string; port: number }) => `${b.host}:${b.port}`).sort()).to.deep.equal([...c.bootstrap].sort());
      if (v >= 1) expect([1, 2, 3]).to.include(md.controllerId);
      if (v >= 2) expect(md.clusterId).to.equal('kafka-test');
      const t = md.topics.find((x: { name: string }) => x.name === 'present');
      expect(t.errorCode).to.equal(ErrorCode.NONE);
      expect(t.partitions).to.have.length(2);
      for (const p of t.partitions) {
        expect(p.replicaNodes).to.have.members([1, 2, 3]);
        expect(p.isrNodes).to.have.members([1, 2, 3]);
        expect(p.replicaNodes).to.include(p.leaderId);
        if (v >= 7) expect(p.leaderEpoch).to.be.at.least(0);
      }
    }
  });

  it('v8+: authorized operations when asked (no authorizer: everything a topic or the cluster supports), else the not-requested value', async () => {
    const asked = await k.call(ApiKeys.Metadata, 8, { topics: [{ name: 'present' }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: true, includeTopicAuthorizedOperations: true });
    // READ WRITE CREATE DELETE ALTER DESCRIBE DESCRIBE_CONFIGS ALTER_CONFIGS = bits 3-8, 10, 11
    expect(asked.topics[0].topicAuthorizedOperations).to.equal(3576);
    // CREATE ALTER DESCRIBE CLUSTER_ACTION DESCRIBE_CONFIGS ALTER_CONFIGS IDEMPOTENT_WRITE = bits 5, 7-12
    expect(asked.clusterAuthorizedOperations).to.equal(8096);
    const plain = await k.call(ApiKeys.Metadata, 9, { topics: [{ name: 'present' }], allowAutoTopicCreation: false });
    expect(plain.topics[0].topicAuthorizedOperations).to.equal(-2147483648);
  });

  it('v0 [] and v1+ null mean every topic; v1+ [] means none', async () => {
    expect(names(await k.call(ApiKeys.Metadata, 0, { topics: [] }))).to.include('present');
    expect(names(await k.call(ApiKeys.Metadata, 1, { topics: null }))).to.include('present');
    expect(await k.call(ApiKeys.Metadata, 1, { topics: [] })).to.have.property('topics').that.deep.equals([]);
  });

  it('answers UNKNOWN_TOPIC_OR_PARTITION when the request does not allow auto-creation', async () => {
    const md = await k.call(ApiKeys.Metadata, 9, { topics: [{ name: 'not-made' }], allowAutoTopicCreation: false });
    expect(md.topics[0]).to.include({ name: 'not-made', errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION });
    const all = await k.call(ApiKeys.Metadata, 9, { topics: null, allowAutoTopicCreation: false });
    expect(names(all)).to.not.include('not-made');
  });

  it('auto-creates a requested topic (LEADER_NOT_AVAILABLE until its leaders are elected), also for v0-v3 requests', async () => {
    for (const [v, name] of [[9, 'auto-nine'], [1, 'auto-one']] as const) {
      const first = await k.call(ApiKeys.Metadata, v, { topics: [{ name }], allowAutoTopicCreation: true });
      expect([ErrorCode.LEADER_NOT_AVAILABLE, ErrorCode.NONE]).to.include(first.topics[0].errorCode);
      const ready = await checkFor(async () => {
        const md = await k.call(ApiKeys.Metadata, v, { topics: [{ name }], allowAutoTopicCreation: true });
        return md.topics[0].errorCode === ErrorCode.NONE && md.topics[0].partitions.every((p: { leaderId: number }) => p.leaderId > 0) ? md : null;
      });
      expect(ready.topics[0].partitions.length).to.be.at.least(1);
    }
  });

  it('does not auto-create an invalid name', async () => {
    const md = await k.call(ApiKeys.Metadata, 9, { topics: [{ name: 'bad name!' }], allowAutoTopicCreation: true });
    expect(md.topics[0].errorCode).to.equal(ErrorCode.INVALID_TOPIC_EXCEPTION);
  });

  it('CreateTopics: created, already exists, bad replication factor, duplicates, manual assignment, validateOnly, configs', async () => {
    const r = await k.call(ApiKeys.CreateTopics, 5, {
      topics: [
        { name: 'made', numPartitions: 3, replicationFactor: 2, assignments: [], configs: [{ name: 'retention.ms', value: '60000' }] },
        { name: 'present', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] },
        { name: 'too-many-copies', numPartitions: 1, replicationFactor: 9, assignments: [], configs: [] },
        { name: 'twice', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] },
        { name: 'twice', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] },
        { name: 'placed', numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: [3, 1] }, { partitionIndex: 1, brokerIds: [2, 3] }], configs: [] },
        { name: 'bad-config', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [{ name: 'no.such.config', value: '1' }] },
      ],
      timeoutMs: 10_000,
      validateOnly: false,
    });
    const by = new Map(r.topics.map((t: { name: string }) => [t.name, t]));
    expect(r.topics.map((t: { name: string }) => t.name)).to.deep.equal(['made', 'present', 'too-many-copies', 'twice', 'placed', 'bad-config']);
    expect(by.get('made')).to.deep.include({ errorCode: ErrorCode.NONE, numPartitions: 3, replicationFactor: 2 });
    // every topic config in force, by name, as Kafka's controller answers: the override (source
    // 1, DYNAMIC_TOPIC_CONFIG) and the others from the broker or Kafka's defaults (5, DEFAULT_CONFIG)
    const configs = (by.get('made') as { configs: { name: string; value: string; configSource: number; readOnly: boolean; isSensitive: boolean }[] }).configs;
    expect(configs.map((c) => c.name)).to.deep.equal([...TOPIC_CONFIG_KEYS].sort());
    const config = (name: string) => configs.find((c) => c.name === name);
    expect(config('retention.ms')).to.deep.equal({ name: 'retention.ms', value: '60000', readOnly: false, configSource: 1, isSensitive: false });
    expect(config('cleanup.policy')).to.deep.include({ value: 'delete', configSource: 5 });
    // the cluster-wide default a new cluster starts with (eligible leader replicas on, KIP-966): 3, DYNAMIC_DEFAULT_BROKER_CONFIG
    expect(config('min.insync.replicas')).to.deep.include({ value: '1', configSource: 3 });
    expect(by.get('present')).to.include({ errorCode: ErrorCode.TOPIC_ALREADY_EXISTS });
    expect(by.get('too-many-copies')).to.include({ errorCode: ErrorCode.INVALID_REPLICATION_FACTOR });
    expect(by.get('twice')).to.include({ errorCode: ErrorCode.INVALID_REQUEST });
    expect(by.get('placed')).to.include({ errorCode: ErrorCode.NONE });
    expect(by.get('bad-config')).to.include({ errorCode: ErrorCode.INVALID_CONFIG });
    const placed = await checkFor(async () => {
      const md = await k.call(ApiKeys.Metadata, 9, { topics: [{ name: 'placed' }], allowAutoTopicCreation: false });
      return md.topics[0].errorCode === ErrorCode.NONE ? md.topics[0] : null;
    });
    expect(placed.partitions.map((p: { replicaNodes: number[] }) => p.replicaNodes)).to.deep.equal([
      [3, 1],
      [2, 3],
    ]);
    const dry = await k.call(ApiKeys.CreateTopics, 1, { topics: [{ name: 'dry-run', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 1000, validateOnly: true });
    expect(dry.topics[0]).to.include({ name: 'dry-run', errorCode: ErrorCode.NONE });
    const after = await k.call(ApiKeys.Metadata, 9, { topics: [{ name: 'dry-run' }], allowAutoTopicCreation: false });
    expect(after.topics[0].errorCode).to.equal(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  });

  it('DeleteTopics: removes topics, unknown names get UNKNOWN_TOPIC_OR_PARTITION (v0 and v5)', async () => {
    await k.call(ApiKeys.CreateTopics, 0, { topics: [{ name: 'doomed', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000 });
    const r = await k.call(ApiKeys.DeleteTopics, 5, { topicNames: ['doomed', 'never-was'], timeoutMs: 5000 });
    expect(r.responses).to.deep.equal([
      { name: 'doomed', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', errorCode: ErrorCode.NONE, errorMessage: null },
      { name: 'never-was', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: r.responses[1].errorMessage },
    ]);
    await checkFor(async () => !names(await k.call(ApiKeys.Metadata, 9, { topics: null, allowAutoTopicCreation: false })).includes('doomed'));
    const v0 = await k.call(ApiKeys.DeleteTopics, 0, { topicNames: ['never-was'], timeoutMs: 5000 });
    expect(v0.responses[0].errorCode).to.equal(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  });
});

describe('Kafka API: CreatePartitions', function () {
  this.timeout(30_000);
  let c: KafkaTestCluster;
  let k: KafkaCaller;

  before(async () => {
    c = await startKafkaCluster({ brokers: 3, topics: [{ name: 'growing', partitions: 1, replicationFactor: 2 }] });
    k = await KafkaCaller.connect(c.bootstrap[0]!);
  });
  after(async () => {
    k?.end();
    await c?.stop();
  });

  const partitionsOf = async (name: string) => (await k.call(ApiKeys.Metadata, 9, { topics: [{ name }], allowAutoTopicCreation: false })).topics[0].partitions;

  it('validateOnly answers without growing; refusals carry Kafka\'s errors', async () => {
    const dry = await k.call(ApiKeys.CreatePartitions, 3, { topics: [{ name: 'growing', count: 3, assignments: null }], timeoutMs: 5000, validateOnly: true });
    expect(dry.results).to.deep.equal([{ name: 'growing', errorCode: ErrorCode.NONE, errorMessage: null }]);
    expect(await partitionsOf('growing')).to.have.length(1);
    const r = await k.call(ApiKeys.CreatePartitions, 0, {
      topics: [
        { name: 'growing', count: 1, assignments: null },
        { name: 'nowhere', count: 2, assignments: null },
      ],
      timeoutMs: 5000,
      validateOnly: false,
    });
    expect(r.results.map((x: { errorCode: number }) => x.errorCode)).to.deep.equal([ErrorCode.INVALID_PARTITIONS, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]);
    const wrongSize = await k.call(ApiKeys.CreatePartitions, 2, { topics: [{ name: 'growing', count: 2, assignments: [{ brokerIds: [1] }] }], timeoutMs: 5000, validateOnly: false });
    expect(wrongSize.results[0].errorCode).to.equal(ErrorCode.INVALID_REPLICA_ASSIGNMENT);
  });

  it('grows a topic, placed by the controller or by explicit assignments', async () => {
    const auto = await k.call(ApiKeys.CreatePartitions, 1, { topics: [{ name: 'growing', count: 2, assignments: null }], timeoutMs: 5000, validateOnly: false });
    expect(auto.results[0].errorCode).to.equal(ErrorCode.NONE);
    const placed = await k.call(ApiKeys.CreatePartitions, 3, { topics: [{ name: 'growing', count: 4, assignments: [{ brokerIds: [3, 2] }, { brokerIds: [2, 1] }] }], timeoutMs: 5000, validateOnly: false });
    expect(placed.results[0].errorCode).to.equal(ErrorCode.NONE);
    const ps = await checkFor(async () => {
      const x = await partitionsOf('growing');
      return x.length === 4 && x.every((p: { leaderId: number }) => p.leaderId > 0) ? x : null;
    });
    expect(ps.slice(2).map((p: { replicaNodes: number[] }) => p.replicaNodes)).to.deep.equal([
      [3, 2],
      [2, 1],
    ]);
  });
});

describe('Kafka API: auto.create.topics.enable=false', function () {
  this.timeout(30_000);
  let c: KafkaTestCluster;
  let k: KafkaCaller;

  before(async () => {
    c = await startKafkaCluster({ brokers: 1, brokerConfig: { 'auto.create.topics.enable': false } });
    k = await KafkaCaller.connect(c.bootstrap[0]!);
  });
  after(async () => {
    k?.end();
    await c?.stop();
  });

  it('never creates a topic from a Metadata request, even one that allows it', async () => {
    for (const v of [1, 9]) {
      const md = await k.call(ApiKeys.Metadata, v, { topics: [{ name: 'wished-for' }], allowAutoTopicCreation: true });
      expect(md.topics[0].errorCode).to.equal(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    }
    const all = await k.call(ApiKeys.Metadata, 9, { topics: null, allowAutoTopicCreation: false });
    expect(all.topics.map((t: { name: string }) => t.name)).to.not.include('wished-for');
  });
});
