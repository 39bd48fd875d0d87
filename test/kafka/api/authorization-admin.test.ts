/**
 * ACLs on the admin APIs, as Kafka's brokers and controller enforce them: CreateTopics (CREATE on
 * the cluster or the topic; configs only with DESCRIBE_CONFIGS), DeleteTopics (DESCRIBE, then
 * DELETE), CreatePartitions (ALTER), DeleteRecords (DELETE), DescribeConfigs (DESCRIBE_CONFIGS on
 * the topic, the cluster or the group), AlterConfigs / IncrementalAlterConfigs (ALTER_CONFIGS),
 * DescribeLogDirs (DESCRIBE on the cluster), AlterReplicaLogDirs (ALTER on the cluster), ElectLeaders (ALTER on the cluster),
 * AlterPartitionReassignments (ALTER on the cluster), ListPartitionReassignments (DESCRIBE on
 * the cluster), AlterUserScramCredentials (ALTER on the cluster), DescribeUserScramCredentials
 * (DESCRIBE on the cluster), DescribeTransactions and ListTransactions (DESCRIBE on the
 * transactional id; a transaction's partitions only of topics the client may DESCRIBE) and
 * DescribeProducers (READ on the topic). Clients authenticate with SASL PLAIN; admin is a super user, alice and bob get
 * ACLs test by test. Each refusal carries the exact error code and leaves the cluster as it was;
 * once the ACL exists the same request goes through.
 */
import { expect } from 'chai';
import { Kafka, logLevel } from 'kafkajs';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { encodeRecordBatch } from '../../../src/protocol/record-batch.js';
import { saltedPassword } from '../../../src/kafka/sasl/scram.js';
import { AclOperation, CLUSTER_NAME, PatternType, ResourceType } from '../../../src/security/acl.js';
import { startAuthorizedKafkaCluster, type AuthorizedKafkaCluster } from '../../helpers/authorized-kafka.js';
import { checkFor } from '../../helpers/check-for.js';
import type { KafkaCaller } from '../../helpers/raw-kafka.js';

const USERS = { alice: 'alice-secret', bob: 'bob-secret' };
type User = keyof typeof USERS;
const TOPIC = 2;
const BROKER = 4;
const { TOPIC_AUTHORIZATION_FAILED, CLUSTER_AUTHORIZATION_FAILED } = ErrorCode;

describe('Kafka API: ACLs on the admin APIs', function () {
  this.timeout(30_000);
  let a: AuthorizedKafkaCluster;
  let root: KafkaCaller;
  let alice: KafkaCaller;
  let bob: KafkaCaller;

  /** Lets `user` perform `operation` on the resource; returns once the broker's listener has the ACL. */
  const allow = (user: User, operation: number, resourceType: number, resourceName: string, patternType: number = PatternType.LITERAL): Promise<void> =>
    a.allow({ principal: `User:${user}`, operation, resourceType, resourceName, patternType });

  const topicNames = async (): Promise<string[]> =>
    (await root.call(ApiKeys.Metadata, 9, { topics: null, allowAutoTopicCreation: false })).topics.map((t: { name: string }) => t.name);
  const partitionCount = async (topic: string): Promise<number> =>
    (await root.call(ApiKeys.Metadata, 9, { topics: [{ name: topic }], allowAutoTopicCreation: false })).topics[0].partitions.length;
  const topicConfig = async (topic: string, key: string): Promise<string> =>
    (await root.call(ApiKeys.DescribeConfigs, 4, { resources: [{ resourceType: TOPIC, resourceName: topic, configurationKeys: [key] }], includeSynonyms: false, includeDocumentation: false })).results[0].configs[0].value;
  const createTopic = async (name: string, numPartitions = 1): Promise<void> => {
    const r = await root.call(ApiKeys.CreateTopics, 5, { topics: [{ name, numPartitions, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5_000, validateOnly: false });
    expect(r.topics[0].errorCode).to.equal(ErrorCode.NONE);
    await checkFor(async () => (await root.call(ApiKeys.Metadata, 9, { topics: [{ name }], allowAutoTopicCreation: false })).topics[0].partitions.every((p: { leaderId: number }) => p.leaderId === 1), 10_000, 20);
  };

  before(async () => {
    a = await startAuthorizedKafkaCluster(USERS, { brokers: 1, brokerConfig: { 'transaction.state.log.num.partitions': 1 } });
    root = await a.login('admin');
    alice = await a.login('alice');
    bob = await a.login('bob');
  });
  afterEach(async () => {
    // every test starts without ACLs
    await a.revokeAll();
  });
  after(async () => {
    await a?.stop();
  });

  describe('CreateTopics', () => {
    const create = (k: KafkaCaller, ...names: string[]) =>
      k.call(ApiKeys.CreateTopics, 5, {
        topics: names.map((name) => ({ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [{ name: 'retention.ms', value: '60000' }] })),
        timeoutMs: 5_000,
        validateOnly: false,
      });

    it('needs CREATE on the topic (else TOPIC_AUTHORIZATION_FAILED, nothing created); configs come back only with DESCRIBE_CONFIGS', async () => {
      const denied = await create(alice, 'ct-a');
      expect(denied.topics).to.have.length(1);
      expect(denied.topics[0]).to.deep.include({ name: 'ct-a', errorCode: TOPIC_AUTHORIZATION_FAILED, errorMessage: 'Authorization failed.', topicConfigErrorCode: 0, numPartitions: -1, replicationFactor: -1, configs: null });
      expect(await topicNames()).to.not.include('ct-a');
      // KafkaJS's admin says the same
      const kafkajs = new Kafka({ clientId: 'acl-admin-test', brokers: a.cluster.bootstrap, logLevel: logLevel.NOTHING, retry: { retries: 0 }, sasl: { mechanism: 'plain', username: 'alice', password: USERS.alice } }).admin();
      await kafkajs.connect();
      try {
        const err = await kafkajs.createTopics({ topics: [{ topic: 'ct-a' }] }).then(() => null, (e: { errors?: { type: string }[] }) => e);
        expect(err?.errors?.map((e) => e.type)).to.deep.equal(['TOPIC_AUTHORIZATION_FAILED']);
      } finally {
        await kafkajs.disconnect();
      }

      await allow('alice', AclOperation.CREATE, ResourceType.TOPIC, 'ct-', PatternType.PREFIXED);
      const created = await create(alice, 'ct-a', 'other-a');
      const byName = new Map(created.topics.map((t: { name: string }) => [t.name, t]));
      // created, but without DESCRIBE_CONFIGS the client learns nothing of its configs
      expect(byName.get('ct-a')).to.deep.include({ errorCode: ErrorCode.NONE, errorMessage: null, topicConfigErrorCode: TOPIC_AUTHORIZATION_FAILED, numPartitions: -1, replicationFactor: -1, configs: [] });
      expect(byName.get('other-a')).to.deep.include({ errorCode: TOPIC_AUTHORIZATION_FAILED });
      const names = await topicNames();
      expect(names).to.include('ct-a');
      expect(names).to.not.include('other-a');

      await allow('alice', AclOperation.DESCRIBE_CONFIGS, ResourceType.TOPIC, 'ct-', PatternType.PREFIXED);
      const described = (await create(alice, 'ct-b')).topics[0];
      expect(described).to.deep.include({ name: 'ct-b', errorCode: ErrorCode.NONE, topicConfigErrorCode: ErrorCode.NONE, numPartitions: 1, replicationFactor: 1 });
      // every config in force, the override among them
      expect(described.configs.length).to.be.above(1);
      expect(described.configs.filter((x: { configSource: number }) => x.configSource === 1).map((x: { name: string; value: string }) => [x.name, x.value])).to.deep.equal([['retention.ms', '60000']]);
    });

    it('CREATE on the cluster covers every topic', async () => {
      expect((await create(bob, 'bob-a')).topics[0].errorCode).to.equal(TOPIC_AUTHORIZATION_FAILED);
      await allow('bob', AclOperation.CREATE, ResourceType.CLUSTER, CLUSTER_NAME);
      expect((await create(bob, 'bob-a')).topics[0]).to.deep.include({ errorCode: ErrorCode.NONE, topicConfigErrorCode: TOPIC_AUTHORIZATION_FAILED });
      expect(await topicNames()).to.include('bob-a');
    });
  });

  describe('DeleteTopics', () => {
    const del = async (k: KafkaCaller, ...names: string[]): Promise<Record<string, number>> => {
      const r = await k.call(ApiKeys.DeleteTopics, 5, { topicNames: names, timeoutMs: 5_000 });
      return Object.fromEntries(r.responses.map((t: { name: string; errorCode: number }) => [t.name, t.errorCode]));
    };

    it('needs DESCRIBE (else TOPIC_AUTHORIZATION_FAILED, even for a topic that does not exist) and DELETE on the topic', async () => {
      await createTopic('dt-a');
      await createTopic('dt-b');
      expect(await del(alice, 'dt-a', 'dt-missing')).to.deep.equal({ 'dt-a': TOPIC_AUTHORIZATION_FAILED, 'dt-missing': TOPIC_AUTHORIZATION_FAILED });
      expect(await topicNames()).to.include('dt-a');

      // allowed to see the topics: an unknown one is said so; DELETE is still missing
      await allow('alice', AclOperation.DESCRIBE, ResourceType.TOPIC, 'dt-', PatternType.PREFIXED);
      expect(await del(alice, 'dt-a', 'dt-missing')).to.deep.equal({ 'dt-a': TOPIC_AUTHORIZATION_FAILED, 'dt-missing': ErrorCode.UNKNOWN_TOPIC_OR_PARTITION });
      expect(await topicNames()).to.include('dt-a');

      await allow('alice', AclOperation.DELETE, ResourceType.TOPIC, 'dt-a');
      expect(await del(alice, 'dt-a', 'dt-b')).to.deep.equal({ 'dt-a': ErrorCode.NONE, 'dt-b': TOPIC_AUTHORIZATION_FAILED });
      const names = await topicNames();
      expect(names).to.not.include('dt-a');
      expect(names).to.include('dt-b');
    });

    it('DELETE on the cluster covers every topic', async () => {
      await createTopic('dt-c');
      expect(await del(bob, 'dt-c')).to.deep.equal({ 'dt-c': TOPIC_AUTHORIZATION_FAILED });
      await allow('bob', AclOperation.DELETE, ResourceType.CLUSTER, CLUSTER_NAME);
      expect(await del(bob, 'dt-c', 'dt-none')).to.deep.equal({ 'dt-c': ErrorCode.NONE, 'dt-none': ErrorCode.UNKNOWN_TOPIC_OR_PARTITION });
      expect(await topicNames()).to.not.include('dt-c');
    });
  });

  it('CreatePartitions needs ALTER on the topic (else TOPIC_AUTHORIZATION_FAILED, the count unchanged)', async () => {
    await createTopic('cp-a');
    const grow = (k: KafkaCaller) => k.call(ApiKeys.CreatePartitions, 3, { topics: [{ name: 'cp-a', count: 2, assignments: null }], timeoutMs: 5_000, validateOnly: false });
    expect((await grow(alice)).results).to.deep.equal([{ name: 'cp-a', errorCode: TOPIC_AUTHORIZATION_FAILED, errorMessage: null }]);
    expect(await partitionCount('cp-a')).to.equal(1);
    await allow('alice', AclOperation.ALTER, ResourceType.TOPIC, 'cp-a');
    expect((await grow(alice)).results).to.deep.equal([{ name: 'cp-a', errorCode: ErrorCode.NONE, errorMessage: null }]);
    await checkFor(async () => (await partitionCount('cp-a')) === 2, 10_000, 20);
  });

  it('DeleteRecords needs DELETE on the topic (else TOPIC_AUTHORIZATION_FAILED per partition, the log start unchanged)', async () => {
    await createTopic('dr-a');
    const records = encodeRecordBatch({ records: ['a', 'b', 'c'].map((v) => ({ value: Buffer.from(v), timestamp: Date.now() })) });
    const p = await root.call(ApiKeys.Produce, 9, { transactionalId: null, acks: -1, timeoutMs: 5_000, topicData: [{ name: 'dr-a', partitionData: [{ index: 0, records }] }] });
    expect(p.responses[0].partitionResponses[0].errorCode).to.equal(ErrorCode.NONE);
    const logStart = async () =>
      (await root.call(ApiKeys.ListOffsets, 5, { replicaId: -1, isolationLevel: 0, topics: [{ name: 'dr-a', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -2 }] }] })).topics[0].partitions[0].offset;
    const trim = (k: KafkaCaller) => k.call(ApiKeys.DeleteRecords, 2, { topics: [{ name: 'dr-a', partitions: [{ partitionIndex: 0, offset: 2 }] }], timeoutMs: 5_000 });

    expect((await trim(alice)).topics).to.deep.equal([{ name: 'dr-a', partitions: [{ partitionIndex: 0, lowWatermark: -1, errorCode: TOPIC_AUTHORIZATION_FAILED }] }]);
    expect(await logStart()).to.equal(0);
    await allow('alice', AclOperation.DELETE, ResourceType.TOPIC, 'dr-a');
    expect((await trim(alice)).topics).to.deep.equal([{ name: 'dr-a', partitions: [{ partitionIndex: 0, lowWatermark: 2, errorCode: ErrorCode.NONE }] }]);
    expect(await logStart()).to.equal(2);
  });

  it('DescribeConfigs needs DESCRIBE_CONFIGS on the topic (TOPIC_AUTHORIZATION_FAILED) or, for a broker, the cluster (CLUSTER_AUTHORIZATION_FAILED)', async () => {
    await createTopic('dc-a');
    const describe = async (k: KafkaCaller) =>
      (
        await k.call(ApiKeys.DescribeConfigs, 4, {
          resources: [
            { resourceType: TOPIC, resourceName: 'dc-a', configurationKeys: ['retention.ms'] },
            { resourceType: BROKER, resourceName: '1', configurationKeys: ['log.retention.ms'] },
          ],
          includeSynonyms: false,
          includeDocumentation: false,
        })
      ).results.map((r: { errorCode: number; errorMessage: string | null; configs: { name: string }[] }) => [r.errorCode, r.errorMessage, r.configs.map((x) => x.name)]);
    expect(await describe(alice)).to.deep.equal([
      [TOPIC_AUTHORIZATION_FAILED, 'Topic authorization failed.', []],
      [CLUSTER_AUTHORIZATION_FAILED, 'Cluster authorization failed.', []],
    ]);
    await allow('alice', AclOperation.DESCRIBE_CONFIGS, ResourceType.TOPIC, 'dc-a');
    expect(await describe(alice)).to.deep.equal([
      [ErrorCode.NONE, null, ['retention.ms']],
      [CLUSTER_AUTHORIZATION_FAILED, 'Cluster authorization failed.', []],
    ]);
    // ALTER_CONFIGS implies DESCRIBE_CONFIGS
    await allow('alice', AclOperation.ALTER_CONFIGS, ResourceType.CLUSTER, CLUSTER_NAME);
    expect(await describe(alice)).to.deep.equal([
      [ErrorCode.NONE, null, ['retention.ms']],
      [ErrorCode.NONE, null, ['log.retention.ms']],
    ]);
  });

  it('AlterConfigs and IncrementalAlterConfigs need ALTER_CONFIGS on the topic (TOPIC_AUTHORIZATION_FAILED) or the cluster (CLUSTER_AUTHORIZATION_FAILED)', async () => {
    await createTopic('ac-a');
    const codes = (r: { responses: { resourceType: number; errorCode: number }[] }) => r.responses.map((x) => [x.resourceType, x.errorCode]);
    const alter = (k: KafkaCaller, retention: string) =>
      k.call(ApiKeys.AlterConfigs, 2, {
        resources: [
          { resourceType: TOPIC, resourceName: 'ac-a', configs: [{ name: 'retention.ms', value: retention }] },
          { resourceType: BROKER, resourceName: '1', configs: [{ name: 'compression.type', value: 'producer' }] },
        ],
        validateOnly: false,
      });
    const alterIncrementally = (k: KafkaCaller, retention: string) =>
      k.call(ApiKeys.IncrementalAlterConfigs, 1, {
        resources: [
          { resourceType: TOPIC, resourceName: 'ac-a', configs: [{ name: 'retention.ms', configOperation: 0, value: retention }] },
          { resourceType: BROKER, resourceName: '1', configs: [{ name: 'compression.type', configOperation: 0, value: 'producer' }] },
        ],
        validateOnly: false,
      });
    const before = await topicConfig('ac-a', 'retention.ms');
    expect(codes(await alter(alice, '1000'))).to.deep.equal([[TOPIC, TOPIC_AUTHORIZATION_FAILED], [BROKER, CLUSTER_AUTHORIZATION_FAILED]]);
    expect(codes(await alterIncrementally(alice, '1000'))).to.deep.equal([[TOPIC, TOPIC_AUTHORIZATION_FAILED], [BROKER, CLUSTER_AUTHORIZATION_FAILED]]);
    expect(await topicConfig('ac-a', 'retention.ms')).to.equal(before);

    await allow('alice', AclOperation.ALTER_CONFIGS, ResourceType.TOPIC, 'ac-a');
    await allow('alice', AclOperation.ALTER_CONFIGS, ResourceType.CLUSTER, CLUSTER_NAME);
    // allowed now (compression.type is a dynamic broker config: its default value, harmless here)
    expect(codes(await alter(alice, '1000'))).to.deep.equal([[TOPIC, ErrorCode.NONE], [BROKER, ErrorCode.NONE]]);
    await checkFor(async () => (await topicConfig('ac-a', 'retention.ms')) === '1000', 10_000, 20);
    expect(codes(await alterIncrementally(alice, '2000'))).to.deep.equal([[TOPIC, ErrorCode.NONE], [BROKER, ErrorCode.NONE]]);
    await checkFor(async () => (await topicConfig('ac-a', 'retention.ms')) === '2000', 10_000, 20);
  });

  it('group configs: DescribeConfigs needs DESCRIBE_CONFIGS on the group, AlterConfigs and IncrementalAlterConfigs ALTER_CONFIGS (else GROUP_AUTHORIZATION_FAILED, nothing changed)', async () => {
    const GROUP = 32;
    const describe = async (k: KafkaCaller) => (await k.call(ApiKeys.DescribeConfigs, 4, { resources: [{ resourceType: GROUP, resourceName: 'acl-cfg', configurationKeys: ['consumer.session.timeout.ms'] }], includeSynonyms: false, includeDocumentation: false })).results[0];
    const set = (k: KafkaCaller, value: string) =>
      k.call(ApiKeys.IncrementalAlterConfigs, 1, { resources: [{ resourceType: GROUP, resourceName: 'acl-cfg', configs: [{ name: 'consumer.session.timeout.ms', configOperation: 0, value }] }], validateOnly: false });
    const replace = (k: KafkaCaller, value: string) =>
      k.call(ApiKeys.AlterConfigs, 2, { resources: [{ resourceType: GROUP, resourceName: 'acl-cfg', configs: [{ name: 'consumer.session.timeout.ms', value }] }], validateOnly: false });
    const d = await describe(alice);
    expect([d.errorCode, d.configs]).to.deep.equal([ErrorCode.GROUP_AUTHORIZATION_FAILED, []]);
    expect((await set(alice, '50000')).responses[0].errorCode).to.equal(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    expect((await replace(alice, '50000')).responses[0].errorCode).to.equal(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    expect((await describe(root)).configs[0].value).to.equal('45000');

    await allow('alice', AclOperation.DESCRIBE_CONFIGS, ResourceType.GROUP, 'acl-cfg');
    expect((await describe(alice)).configs[0].value).to.equal('45000');
    expect((await set(alice, '50000')).responses[0].errorCode).to.equal(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    await allow('alice', AclOperation.ALTER_CONFIGS, ResourceType.GROUP, 'acl-cfg');
    expect((await set(alice, '50000')).responses[0].errorCode).to.equal(ErrorCode.NONE);
    await checkFor(async () => (await describe(alice)).configs[0].value === '50000', 10_000, 20);
    expect((await replace(alice, '55000')).responses[0].errorCode).to.equal(ErrorCode.NONE);
    await checkFor(async () => (await describe(alice)).configs[0].value === '55000', 10_000, 20);
  });

  it('DescribeLogDirs needs DESCRIBE on the cluster: else CLUSTER_AUTHORIZATION_FAILED (v3+) and no results', async () => {
    await createTopic('ld-a');
    const v4 = await alice.call(ApiKeys.DescribeLogDirs, 4, { topics: null });
    expect(v4).to.deep.include({ errorCode: CLUSTER_AUTHORIZATION_FAILED, results: [] });
    // v0-v2 have no top-level code: just nothing
    expect((await alice.call(ApiKeys.DescribeLogDirs, 1, { topics: null })).results).to.deep.equal([]);
    await allow('alice', AclOperation.DESCRIBE, ResourceType.CLUSTER, CLUSTER_NAME);
    const allowed = await alice.call(ApiKeys.DescribeLogDirs, 4, { topics: [{ topic: 'ld-a', partitions: [0] }] });
    expect(allowed.errorCode).to.equal(ErrorCode.NONE);
    expect(allowed.results).to.have.length(1);
    expect(allowed.results[0].topics.map((t: { name: string }) => t.name)).to.deep.equal(['ld-a']);
  });

  it('AlterReplicaLogDirs needs ALTER on the cluster: else CLUSTER_AUTHORIZATION_FAILED on every partition', async () => {
    await createTopic('rld-a');
    const dirs = await root.call(ApiKeys.DescribeLogDirs, 4, { topics: null });
    const logDir: string = dirs.results[0].logDir;
    const alter = (k: KafkaCaller) => k.call(ApiKeys.AlterReplicaLogDirs, 2, { dirs: [{ path: logDir, topics: [{ name: 'rld-a', partitions: [0] }] }] });
    expect((await alter(alice)).results).to.deep.equal([{ topicName: 'rld-a', partitions: [{ partitionIndex: 0, errorCode: CLUSTER_AUTHORIZATION_FAILED }] }]);
    await allow('alice', AclOperation.DESCRIBE, ResourceType.CLUSTER, CLUSTER_NAME);
    expect((await alter(alice)).results[0].partitions[0].errorCode).to.equal(CLUSTER_AUTHORIZATION_FAILED);
    await allow('alice', AclOperation.ALTER, ResourceType.CLUSTER, CLUSTER_NAME);
    // the log is in that dir already: nothing to move
    expect((await alter(alice)).results).to.deep.equal([{ topicName: 'rld-a', partitions: [{ partitionIndex: 0, errorCode: ErrorCode.NONE }] }]);
  });

  it('ElectLeaders needs ALTER on the cluster: else CLUSTER_AUTHORIZATION_FAILED at the top and per partition', async () => {
    await createTopic('el-a');
    const elect = (k: KafkaCaller) => k.call(ApiKeys.ElectLeaders, 2, { electionType: 0, topicPartitions: [{ topic: 'el-a', partitions: [0] }], timeoutMs: 5_000 });
    const denied = await elect(alice);
    expect(denied.errorCode).to.equal(CLUSTER_AUTHORIZATION_FAILED);
    expect(denied.replicaElectionResults).to.deep.equal([{ topic: 'el-a', partitionResult: [{ partitionId: 0, errorCode: CLUSTER_AUTHORIZATION_FAILED, errorMessage: null }] }]);
    // DESCRIBE is not enough
    await allow('alice', AclOperation.DESCRIBE, ResourceType.CLUSTER, CLUSTER_NAME);
    expect((await elect(alice)).errorCode).to.equal(CLUSTER_AUTHORIZATION_FAILED);
    await allow('alice', AclOperation.ALTER, ResourceType.CLUSTER, CLUSTER_NAME);
    const allowed = await elect(alice);
    // the controller answers: the only replica already leads
    expect(allowed.errorCode).to.equal(ErrorCode.NONE);
    expect(allowed.replicaElectionResults[0].partitionResult[0].errorCode).to.equal(ErrorCode.ELECTION_NOT_NEEDED);
  });

  it('AlterPartitionReassignments needs ALTER on the cluster, ListPartitionReassignments DESCRIBE (else CLUSTER_AUTHORIZATION_FAILED)', async () => {
    await createTopic('ra-a');
    const reassign = (k: KafkaCaller) => k.call(ApiKeys.AlterPartitionReassignments, 0, { timeoutMs: 5_000, topics: [{ name: 'ra-a', partitions: [{ partitionIndex: 0, replicas: [1] }] }] });
    const list = (k: KafkaCaller) => k.call(ApiKeys.ListPartitionReassignments, 0, { timeoutMs: 5_000, topics: [{ name: 'ra-a', partitionIndexes: [0] }] });
    const refused = { errorCode: CLUSTER_AUTHORIZATION_FAILED, errorMessage: 'Cluster authorization failed.' };
    expect(await reassign(alice)).to.deep.include({ ...refused, responses: [{ name: 'ra-a', partitions: [{ partitionIndex: 0, ...refused }] }] });
    expect(await list(alice)).to.deep.include({ ...refused, topics: [{ name: 'ra-a', partitions: [{ partitionIndex: 0, replicas: [], addingReplicas: [], removingReplicas: [] }] }] });

    await allow('alice', AclOperation.DESCRIBE, ResourceType.CLUSTER, CLUSTER_NAME);
    expect(await list(alice)).to.deep.include({ errorCode: ErrorCode.NONE, topics: [] });
    expect((await reassign(alice)).errorCode).to.equal(CLUSTER_AUTHORIZATION_FAILED);
    await allow('alice', AclOperation.ALTER, ResourceType.CLUSTER, CLUSTER_NAME);
    const allowed = await reassign(alice);
    expect(allowed.errorCode).to.equal(ErrorCode.NONE);
    expect(allowed.responses[0].partitions[0].errorCode).to.equal(ErrorCode.NONE);
  });

  it('AlterUserScramCredentials needs ALTER on the cluster, DescribeUserScramCredentials DESCRIBE (else CLUSTER_AUTHORIZATION_FAILED, nothing changed)', async () => {
    const salt = Buffer.from('sixteen byte salt');
    const alter = (k: KafkaCaller) =>
      k.call(ApiKeys.AlterUserScramCredentials, 0, { deletions: [], upsertions: [{ name: 'carol', mechanism: 1, iterations: 4096, salt, saltedPassword: saltedPassword('SHA-256', 'carol-secret', salt, 4096) }] });
    const describe = (k: KafkaCaller) => k.call(ApiKeys.DescribeUserScramCredentials, 0, { users: null });
    const refused = { errorCode: CLUSTER_AUTHORIZATION_FAILED, errorMessage: 'Cluster authorization failed.' };
    expect(await alter(bob)).to.deep.include({ results: [{ user: 'carol', ...refused }] });
    expect(await describe(bob)).to.deep.include({ ...refused, results: [] });
    expect((await describe(root)).results).to.deep.equal([]);

    await allow('bob', AclOperation.DESCRIBE, ResourceType.CLUSTER, CLUSTER_NAME);
    expect((await describe(bob)).errorCode).to.equal(ErrorCode.NONE);
    expect((await alter(bob)).results[0].errorCode).to.equal(CLUSTER_AUTHORIZATION_FAILED);
    await allow('bob', AclOperation.ALTER, ResourceType.CLUSTER, CLUSTER_NAME);
    expect((await alter(bob)).results[0]).to.deep.include({ user: 'carol', errorCode: ErrorCode.NONE });
    expect((await describe(bob)).results.map((r: { user: string }) => r.user)).to.deep.equal(['carol']);
  });

  it('DescribeTransactions needs DESCRIBE on the transactional id (else TRANSACTIONAL_ID_AUTHORIZATION_FAILED), ListTransactions leaves the others out; partitions only of topics it may describe', async () => {
    await createTopic('txn-watched');
    const init = await checkFor(async () => {
      // as a producer does: FindCoordinator first (it creates __transaction_state)
      if ((await root.call(ApiKeys.FindCoordinator, 3, { key: 'watched', keyType: 1 })).errorCode !== ErrorCode.NONE) return null;
      const r = await root.call(ApiKeys.InitProducerId, 4, { transactionalId: 'watched', transactionTimeoutMs: 30_000, producerId: -1, producerEpoch: -1 });
      return r.errorCode === ErrorCode.NONE ? r : null;
    }, 15_000, 50);
    const add = await root.call(ApiKeys.AddPartitionsToTxn, 3, { v3AndBelowTransactionalId: 'watched', v3AndBelowProducerId: init.producerId, v3AndBelowProducerEpoch: init.producerEpoch, v3AndBelowTopics: [{ name: 'txn-watched', partitions: [0] }] });
    expect(add.resultsByTopicV3AndBelow[0].resultsByPartition[0].partitionErrorCode).to.equal(ErrorCode.NONE);
    const describe = async (k: KafkaCaller) => (await k.call(ApiKeys.DescribeTransactions, 0, { transactionalIds: ['watched'] })).transactionStates[0];
    const listed = async (k: KafkaCaller) => {
      const r = await k.call(ApiKeys.ListTransactions, 1, { stateFilters: [], producerIdFilters: [], durationFilter: -1 });
      expect(r.errorCode).to.equal(ErrorCode.NONE);
      return r.transactionStates.map((t: { transactionalId: string }) => t.transactionalId);
    };

    expect(await describe(bob)).to.deep.include({ errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, transactionalId: 'watched', producerId: -1, topics: [] });
    expect(await listed(bob)).to.deep.equal([]);
    expect(await listed(root)).to.deep.equal(['watched']);

    await allow('bob', AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, 'watched');
    // the transaction, but not the partitions of a topic bob may not describe
    expect(await describe(bob)).to.deep.include({ errorCode: ErrorCode.NONE, transactionState: 'Ongoing', producerId: init.producerId, topics: [] });
    expect(await listed(bob)).to.deep.equal(['watched']);
    await allow('bob', AclOperation.DESCRIBE, ResourceType.TOPIC, 'txn-watched');
    expect((await describe(bob)).topics).to.deep.equal([{ topic: 'txn-watched', partitions: [0] }]);
    // DescribeProducers needs READ on the topic
    const producers = async (k: KafkaCaller) => (await k.call(ApiKeys.DescribeProducers, 0, { topics: [{ name: 'txn-watched', partitionIndexes: [0] }] })).topics[0].partitions[0];
    expect(await producers(bob)).to.deep.include({ errorCode: TOPIC_AUTHORIZATION_FAILED, activeProducers: [] });
    await allow('bob', AclOperation.READ, ResourceType.TOPIC, 'txn-watched');
    expect((await producers(bob)).errorCode).to.equal(ErrorCode.NONE);
    expect((await root.call(ApiKeys.EndTxn, 4, { transactionalId: 'watched', producerId: init.producerId, producerEpoch: init.producerEpoch, committed: false })).errorCode).to.equal(ErrorCode.NONE);
  });
});
