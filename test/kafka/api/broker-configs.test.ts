/**
 * Dynamic broker configs over the Kafka protocol (KIP-226): IncrementalAlterConfigs and
 * AlterConfigs on BROKER resources ('' the cluster-wide default, or a broker id) change the
 * topic-config defaults while the brokers run. Every replica of a topic without its own value
 * (existing and created later) takes the change at once; a topic's override still wins; a
 * broker's own value wins over the default; min.insync.replicas set as a default refuses acks=all
 * writes it cannot meet; DescribeConfigs shows the sources; keys that cannot change at run time
 * and bad values are refused per resource; KafkaJS's admin.alterConfigs does it too.
 */
import { expect } from 'chai';
import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import type { BrokerDescription } from '../../../actors/broker/messages.js';
import type { ReplicaDescription } from '../../../actors/partition-replica/messages.js';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { brokerPath, replicaPath } from '../../../src/protocol/cluster.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { encodeRecordBatch } from '../../../src/protocol/record-batch.js';
import { checkFor } from '../../helpers/check-for.js';
import { startKafkaCluster, type KafkaTestCluster } from '../../helpers/kafka-cluster.js';
import { KafkaCaller } from '../../helpers/raw-kafka.js';

const BROKER = 4;
const SET = 0;
const DELETE = 1;
const APPEND = 2;
/** Kafka's ConfigSource codes. */
const Source = { TOPIC: 1, BROKER: 2, DEFAULT_BROKER: 3, STATIC: 4, DEFAULT: 5 };

describe('Kafka API: dynamic broker configs', function () {
  this.timeout(60_000);
  let c: KafkaTestCluster;
  let k: KafkaCaller;

  before(async () => {
    c = await startKafkaCluster({
      brokers: 2,
      brokerConfig: { 'log.retention.ms': 3_600_000 },
      topics: [
        { name: 'plain', partitions: 1, replicationFactor: 2 },
        { name: 'own', partitions: 1, replicationFactor: 2, config: { 'retention.ms': 60_000 } },
      ],
    });
    k = await KafkaCaller.connect(c.bootstrap[0]!);
  });
  after(async () => {
    k?.end();
    await c?.stop();
  });

  const logConfig = async (broker: number, topic: string): Promise<Record<string, string>> =>
    ((await c.handle.mainSystem.ask({ node: 'main', path: replicaPath(broker, topic, 0) }, { type: 'DescribeReplica' })) as unknown as ReplicaDescription).logConfig;
  const incremental = (resources: { resourceName: string; configs: { name: string; configOperation: number; value: string | null }[] }[], validateOnly = false) =>
    k.call(ApiKeys.IncrementalAlterConfigs, 1, { resources: resources.map((r) => ({ resourceType: BROKER, ...r })), validateOnly });
  const codes = (r: { responses: { errorCode: number }[] }) => r.responses.map((x) => x.errorCode);
  const describe = async (caller: KafkaCaller, resourceType: number, resourceName: string, keys: string[] | null) => {
    const r = await caller.call(ApiKeys.DescribeConfigs, 4, { resources: [{ resourceType, resourceName, configurationKeys: keys }], includeSynonyms: true, includeDocumentation: false });
    return new Map<string, any>(r.results[0].configs.map((x: { name: string }) => [x.name, x]));
  };

  it('a cluster-wide default and a broker\'s own value reach every replica of topics without their own, at once', async () => {
    const r = await incremental([
      { resourceName: '', configs: [{ name: 'log.retention.ms', configOperation: SET, value: '123456' }, { name: 'log.segment.bytes', configOperation: SET, value: '4194304' }] },
      { resourceName: '2', configs: [{ name: 'log.segment.bytes', configOperation: SET, value: '2097152' }] },
    ]);
    expect(codes(r)).to.deep.equal([0, 0]);
    await checkFor(async () => {
      const [p1, p2, o1, o2] = await Promise.all([logConfig(1, 'plain'), logConfig(2, 'plain'), logConfig(1, 'own'), logConfig(2, 'own')]);
      return (
        p1['retention.ms'] === '123456' && p2['retention.ms'] === '123456' &&
        p1['segment.bytes'] === '4194304' && p2['segment.bytes'] === '2097152' &&
        // the topic's own value wins over any broker default
        o1['retention.ms'] === '60000' && o2['retention.ms'] === '60000' && o1['segment.bytes'] === '4194304'
      );
    }, 10_000, 20);
    // a topic created afterwards starts with the new defaults
    const created = await k.call(ApiKeys.CreateTopics, 5, { topics: [{ name: 'later', numPartitions: 1, replicationFactor: 2, assignments: [], configs: [] }], timeoutMs: 5_000 });
    expect(created.topics[0].errorCode).to.equal(0);
    await checkFor(async () => {
      try {
        return (await logConfig(1, 'later'))['retention.ms'] === '123456' && (await logConfig(2, 'later'))['segment.bytes'] === '2097152';
      } catch {
        return false;
      }
    }, 10_000, 20);
  });

  it('DescribeConfigs shows where each value comes from: the broker\'s own, the cluster default, its file, Kafka\'s default', async () => {
    const b2 = await KafkaCaller.connect(c.bootstrap[1]!);
    try {
      const two = await describe(b2, BROKER, '2', ['log.segment.bytes', 'log.retention.ms', 'socket.request.max.bytes']);
      expect(two.get('log.segment.bytes')).to.include({ value: '2097152', configSource: Source.BROKER, readOnly: false });
      expect(two.get('log.segment.bytes').synonyms.map((x: { source: number }) => x.source)).to.deep.equal([Source.BROKER, Source.DEFAULT_BROKER, Source.DEFAULT]);
      expect(two.get('log.retention.ms')).to.include({ value: '123456', configSource: Source.DEFAULT_BROKER });
      expect(two.get('log.retention.ms').synonyms.map((x: { source: number }) => x.source)).to.deep.equal([Source.DEFAULT_BROKER, Source.STATIC, Source.DEFAULT]);
      expect(two.get('socket.request.max.bytes')).to.include({ readOnly: true, configSource: Source.DEFAULT });
      const topic = await describe(b2, 2, 'plain', ['segment.bytes', 'retention.ms']);
      expect(topic.get('segment.bytes')).to.include({ value: '2097152', configSource: Source.BROKER });
      expect(topic.get('retention.ms').synonyms.map((x: { name: string; source: number }) => [x.name, x.source])).to.deep.equal([
        ['log.retention.ms', Source.DEFAULT_BROKER],
        ['log.retention.ms', Source.STATIC],
        ['log.retention.ms', Source.DEFAULT],
      ]);
    } finally {
      b2.end();
    }
    const defaults = await describe(k, BROKER, '', null);
    // min.insync.replicas: the cluster-wide one a new cluster starts with (eligible leader replicas on, KIP-966)
    expect([...defaults.keys()]).to.deep.equal(['log.retention.ms', 'log.segment.bytes', 'min.insync.replicas']);
    expect(defaults.get('min.insync.replicas')).to.include({ value: '1', configSource: Source.DEFAULT_BROKER });
    expect(defaults.get('log.retention.ms')).to.include({ value: '123456', configSource: Source.DEFAULT_BROKER });
  });

  it('min.insync.replicas as a default refuses acks=all writes it cannot meet, until set back', async () => {
    const produce = async () => {
      const leaderId = (await k.call(ApiKeys.Metadata, 9, { topics: [{ name: 'plain' }], allowAutoTopicCreation: false })).topics[0].partitions[0].leaderId;
      const leader = await KafkaCaller.connect(c.bootstrap[leaderId - 1]!);
      try {
        const records = encodeRecordBatch({ records: [{ value: Buffer.from('x'), timestamp: Date.now() }] });
        const p = await leader.call(ApiKeys.Produce, 9, { transactionalId: null, acks: -1, timeoutMs: 5_000, topicData: [{ name: 'plain', partitionData: [{ index: 0, records }] }] });
        return p.responses[0].partitionResponses[0].errorCode as number;
      } finally {
        leader.end();
      }
    };
    expect(await produce()).to.equal(ErrorCode.NONE);
    expect(codes(await incremental([{ resourceName: '', configs: [{ name: 'min.insync.replicas', configOperation: SET, value: '3' }] }]))).to.deep.equal([0]);
    await checkFor(async () => (await produce()) === ErrorCode.NOT_ENOUGH_REPLICAS, 10_000, 50);
    // with eligible leader replicas on it cannot be deleted (Kafka's refusal), only set
    expect(codes(await incremental([{ resourceName: '', configs: [{ name: 'min.insync.replicas', configOperation: DELETE, value: null }] }]))).to.deep.equal([ErrorCode.INVALID_CONFIG]);
    expect(codes(await incremental([{ resourceName: '', configs: [{ name: 'min.insync.replicas', configOperation: SET, value: '1' }] }]))).to.deep.equal([0]);
    await checkFor(async () => (await produce()) === ErrorCode.NONE, 10_000, 50);
  });

  it('producer.id.expiration.ms reaches every replica, and the log cleaner takes its backoff and buffer size, while the brokers run', async () => {
    const broker = (id: number) => c.handle.mainSystem.ask({ node: 'main', path: brokerPath(id) }, { type: 'DescribeBroker' }) as Promise<unknown> as Promise<BrokerDescription>;
    const replica = (id: number) => c.handle.mainSystem.ask({ node: 'main', path: replicaPath(id, 'plain', 0) }, { type: 'DescribeReplica' }) as Promise<unknown> as Promise<ReplicaDescription>;
    expect((await replica(1)).producerIdExpirationMs).to.equal(86_400_000);
    expect((await broker(2)).logCleaner).to.deep.include({ backoffMs: 15_000, dedupeBufferBytes: 128 * 1024 * 1024 });
    const r = await incremental([
      { resourceName: '', configs: [{ name: 'producer.id.expiration.ms', configOperation: SET, value: '600000' }] },
      { resourceName: '2', configs: [{ name: 'log.cleaner.backoff.ms', configOperation: SET, value: '5000' }, { name: 'log.cleaner.dedupe.buffer.size', configOperation: SET, value: String(32 * 1024 * 1024) }] },
    ]);
    expect(codes(r)).to.deep.equal([0, 0]);
    await checkFor(async () => (await replica(1)).producerIdExpirationMs === 600_000 && (await replica(2)).producerIdExpirationMs === 600_000, 10_000, 20);
    await checkFor(async () => (await broker(2)).logCleaner.backoffMs === 5_000, 10_000, 20);
    expect((await broker(2)).logCleaner).to.deep.include({ dedupeBufferBytes: 32 * 1024 * 1024, scheduled: true });
    expect((await broker(1)).logCleaner.backoffMs, 'only broker 2 was told').to.equal(15_000);
    // deleted: back to the topology's (here Kafka's) values
    const back = await incremental([
      { resourceName: '', configs: [{ name: 'producer.id.expiration.ms', configOperation: DELETE, value: null }] },
      { resourceName: '2', configs: [{ name: 'log.cleaner.backoff.ms', configOperation: DELETE, value: null }, { name: 'log.cleaner.dedupe.buffer.size', configOperation: DELETE, value: null }] },
    ]);
    expect(codes(back)).to.deep.equal([0, 0]);
    await checkFor(async () => (await replica(1)).producerIdExpirationMs === 86_400_000 && (await broker(2)).logCleaner.backoffMs === 15_000, 10_000, 20);
    // a buffer below Kafka's minimum is refused
    const small = await incremental([{ resourceName: '1', configs: [{ name: 'log.cleaner.dedupe.buffer.size', configOperation: SET, value: '1024' }] }]);
    expect(codes(small)).to.deep.equal([ErrorCode.INVALID_CONFIG]);
  });

  it('refuses, per resource: a key that cannot change at run time, a bad value, a name that is not a broker id; validateOnly changes nothing', async () => {
    const r = await incremental([
      { resourceName: '1', configs: [{ name: 'socket.request.max.bytes', configOperation: SET, value: '1000' }] },
      { resourceName: '2', configs: [{ name: 'log.retention.ms', configOperation: SET, value: 'soon' }] },
      { resourceName: 'broker-1', configs: [{ name: 'log.retention.ms', configOperation: SET, value: '1' }] },
      { resourceName: '', configs: [{ name: 'log.cleanup.policy', configOperation: APPEND, value: 'compact' }] },
    ], true);
    expect(codes(r)).to.deep.equal([ErrorCode.INVALID_REQUEST, ErrorCode.INVALID_CONFIG, ErrorCode.INVALID_REQUEST, ErrorCode.NONE]);
    expect((r.responses[0] as { errorMessage: string }).errorMessage).to.match(/cannot be changed while the broker runs/);
    expect((await logConfig(1, 'plain'))['cleanup.policy'], 'validateOnly').to.equal('delete');
  });

  it('AlterConfigs replaces a broker resource\'s whole set; KafkaJS admin.alterConfigs sets a broker\'s own', async () => {
    // the cluster-wide min.insync.replicas is named: leaving it out would delete it, refused while ELR is on
    const r = await k.call(ApiKeys.AlterConfigs, 2, { resources: [{ resourceType: BROKER, resourceName: '', configs: [{ name: 'log.retention.ms', value: '7777777' }, { name: 'min.insync.replicas', value: '1' }] }], validateOnly: false });
    expect(codes(r)).to.deep.equal([0]);
    await checkFor(async () => {
      const [p1, p2] = await Promise.all([logConfig(1, 'plain'), logConfig(2, 'plain')]);
      // the default's other keys are gone: broker 1's segment size is Kafka's again, broker 2 keeps its own
      return p1['retention.ms'] === '7777777' && p2['retention.ms'] === '7777777' && p1['segment.bytes'] === String(1024 * 1024 * 1024) && p2['segment.bytes'] === '2097152';
    }, 10_000, 20);
    const admin = new Kafka({ clientId: 'dyn', brokers: c.bootstrap, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.BROKER, name: '2', configEntries: [{ name: 'log.roll.ms', value: '600000' }] }] });
    } finally {
      await admin.disconnect();
    }
    await checkFor(async () => {
      const p2 = await logConfig(2, 'plain');
      // broker 2's set replaced: its own segment size gone, its roll time set
      return p2['segment.ms'] === '600000' && p2['segment.bytes'] === String(1024 * 1024 * 1024);
    }, 10_000, 20);
  });

  it("with eligible leader replicas on (KIP-966), min.insync.replicas is cluster-wide: a broker's own and deleting the cluster's are refused with Kafka's messages, by both requests", async () => {
    const brokerLevel = { errorCode: ErrorCode.INVALID_CONFIG, errorMessage: 'Broker-level min.insync.replicas cannot be altered while ELR is enabled.' };
    const clusterRemoval = { errorCode: ErrorCode.INVALID_CONFIG, errorMessage: 'Cluster-level min.insync.replicas cannot be removed while ELR is enabled.' };
    const answers = (r: { responses: { errorCode: number; errorMessage: string | null }[] }) => r.responses.map((x) => ({ errorCode: x.errorCode, errorMessage: x.errorMessage }));
    const before = await describe(k, BROKER, '', ['min.insync.replicas']);
    expect(before.get('min.insync.replicas')).to.include({ value: '1', configSource: Source.DEFAULT_BROKER });

    // IncrementalAlterConfigs: a broker's own set or deleted, the cluster's deleted; setting the cluster's goes through
    const inc = await incremental([
      { resourceName: '1', configs: [{ name: 'min.insync.replicas', configOperation: SET, value: '2' }] },
      { resourceName: '2', configs: [{ name: 'min.insync.replicas', configOperation: DELETE, value: null }] },
    ]);
    expect(answers(inc)).to.deep.equal([brokerLevel, brokerLevel]);
    expect(answers(await incremental([{ resourceName: '', configs: [{ name: 'min.insync.replicas', configOperation: DELETE, value: null }] }], true)), 'validateOnly too').to.deep.equal([clusterRemoval]);
    expect(codes(await incremental([{ resourceName: '', configs: [{ name: 'min.insync.replicas', configOperation: SET, value: '2' }] }]))).to.deep.equal([0]);
    await checkFor(async () => (await describe(k, 2, 'plain', ['min.insync.replicas'])).get('min.insync.replicas')?.value === '2', 10_000, 20);

    // AlterConfigs: a broker's set naming it; the cluster's set without it (its whole set replaced: it would be deleted)
    const current = await describe(k, BROKER, '', null);
    const others = [...current.values()].filter((x: { name: string; configSource: number }) => x.configSource === Source.DEFAULT_BROKER && x.name !== 'min.insync.replicas').map((x: { name: string; value: string }) => ({ name: x.name, value: x.value }));
    const legacy = await k.call(ApiKeys.AlterConfigs, 2, {
      resources: [
        { resourceType: BROKER, resourceName: '2', configs: [{ name: 'min.insync.replicas', value: '1' }] },
        { resourceType: BROKER, resourceName: '', configs: others },
      ],
      validateOnly: false,
    });
    expect(answers(legacy)).to.deep.equal([brokerLevel, clusterRemoval]);
    const after = await describe(k, BROKER, '', ['min.insync.replicas']);
    expect(after.get('min.insync.replicas')).to.include({ value: '2', configSource: Source.DEFAULT_BROKER });
    const b2 = await KafkaCaller.connect(c.bootstrap[1]!);
    try {
      expect((await describe(b2, BROKER, '2', ['min.insync.replicas'])).get('min.insync.replicas'), 'broker 2 has none of its own').to.include({ value: '2', configSource: Source.DEFAULT_BROKER });
    } finally {
      b2.end();
    }
    expect(codes(await incremental([{ resourceName: '', configs: [{ name: 'min.insync.replicas', configOperation: SET, value: '1' }] }]))).to.deep.equal([0]);
  });
});
