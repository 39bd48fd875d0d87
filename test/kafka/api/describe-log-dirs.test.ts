/**
 * DescribeLogDirs over the Kafka protocol, every version (0-4), against a two-broker cluster
 * whose topic has a replica of each partition on both brokers: each broker answers for its own
 * log dir (its absolute path) with the partitions it holds, their sizes (above 0 once written to,
 * and growing with the next produce, on the leader and its follower alike), offset lag 0 and no
 * future replicas; a topic filter, an unknown topic (nothing for it), v3's top-level error code
 * and v4's total and usable bytes of the volume. With two log dirs: AlterReplicaLogDirs moves, and
 * the dynamic replica.alter.log.dirs.io.max.bytes.per.second (IncrementalAlterConfigs, shown by
 * DescribeConfigs) holding a move in progress back until it is lifted.
 */
import path from 'node:path';
import { expect } from 'chai';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { encodeRecordBatch } from '../../../src/protocol/record-batch.js';
import { checkFor } from '../../helpers/check-for.js';
import { startKafkaCluster, type KafkaTestCluster } from '../../helpers/kafka-cluster.js';
import { KafkaCaller } from '../../helpers/raw-kafka.js';

const TOPIC = 'sized';
const SOLO = 'solo';

interface Partition {
  partitionIndex: number;
  partitionSize: number;
  offsetLag: number;
  isFutureKey: boolean;
}

function batch(n: number): Buffer {
  return encodeRecordBatch({ records: Array.from({ length: n }, (_, i) => ({ key: Buffer.from(`k${i}`), value: Buffer.alloc(100, i), headers: [], timestamp: Date.now() })) });
}

describe('Kafka API: DescribeLogDirs', function () {
  this.timeout(30_000);
  let c: KafkaTestCluster;
  const callers = new Map<number, KafkaCaller>();
  const leaders = new Map<number, number>();

  before(async () => {
    c = await startKafkaCluster({
      brokers: 2,
      topics: [
        { name: TOPIC, partitions: 2, replicationFactor: 2 },
        { name: SOLO, partitions: 2, replicationFactor: 1 },
      ],
    });
    for (const [i, endpoint] of c.bootstrap.entries()) callers.set(i + 1, await KafkaCaller.connect(endpoint));
    const md = await callers.get(1)!.call(ApiKeys.Metadata, 9, { topics: [{ name: TOPIC }], allowAutoTopicCreation: false });
    for (const p of md.topics[0].partitions) leaders.set(p.partitionIndex, p.leaderId);
  });
  after(async () => {
    for (const k of callers.values()) k.end();
    await c?.stop();
  });

  const describeDirs = (broker: number, version: number, topics: { topic: string; partitions: number[] }[] | null = null) => callers.get(broker)!.call(ApiKeys.DescribeLogDirs, version, { topics });
  const produce = (partition: number, records: Buffer) =>
    callers.get(leaders.get(partition)!)!.call(ApiKeys.Produce, 9, { transactionalId: null, acks: -1, timeoutMs: 5_000, topicData: [{ name: TOPIC, partitionData: [{ index: partition, records }] }] });
  /** The partitions of `topic` in a broker's one log dir, by index. */
  const partitionsOf = (r: any, topic: string): Map<number, Partition> =>
    new Map(((r.results[0].topics as { name: string; partitions: Partition[] }[]).find((t) => t.name === topic)?.partitions ?? []).map((p) => [p.partitionIndex, p]));
  const sizes = async (broker: number) => [...partitionsOf(await describeDirs(broker, 4, [{ topic: TOPIC, partitions: [0, 1] }]), TOPIC).values()].map((p) => p.partitionSize);

  it('answers every version 0-4 with the broker\'s own log dir and every partition it holds', async () => {
    for (const broker of [1, 2]) {
      for (let v = 0; v <= 4; v++) {
        const r = await describeDirs(broker, v);
        expect(r.throttleTimeMs).to.equal(0);
        expect(r.errorCode, `v${v}`).to.equal(v >= 3 ? ErrorCode.NONE : 0);
        expect(r.results, `broker ${broker} v${v}`).to.have.length(1);
        const dir = r.results[0];
        expect(dir.errorCode).to.equal(ErrorCode.NONE);
        expect(dir.logDir).to.equal(path.resolve(c.dir, `broker-${broker}`));
        expect(path.isAbsolute(dir.logDir)).to.equal(true);
        const sized = partitionsOf(r, TOPIC);
        expect([...sized.keys()].sort()).to.deep.equal([0, 1]);
        for (const p of sized.values()) expect(p).to.include({ offsetLag: 0, isFutureKey: false });
        // solo has one replica per partition: each broker holds one of the two
        expect(partitionsOf(r, SOLO).size, `broker ${broker} v${v}: ${SOLO}`).to.equal(1);
        if (v >= 4) {
          expect(dir.totalBytes).to.be.greaterThan(0);
          expect(dir.usableBytes).to.be.greaterThan(0);
          expect(dir.usableBytes).to.be.at.most(dir.totalBytes);
        } else {
          // not in these versions: decoded as the schema's default
          expect(dir.totalBytes).to.equal(-1);
          expect(dir.usableBytes).to.equal(-1);
        }
      }
    }
    const solo1 = [...partitionsOf(await describeDirs(1, 4), SOLO).keys()];
    const solo2 = [...partitionsOf(await describeDirs(2, 4), SOLO).keys()];
    expect([...solo1, ...solo2].sort()).to.deep.equal([0, 1]);
  });

  it('reports sizes above 0 once written to, growing with the next produce, on leader and follower alike', async () => {
    for (const p of [0, 1]) expect((await produce(p, batch(5))).responses[0].partitionResponses[0].errorCode).to.equal(ErrorCode.NONE);
    // the follower has it once it fetched it
    const first = new Map<number, number[]>();
    for (const broker of [1, 2]) first.set(broker, await checkFor(async () => {
      const s = await sizes(broker);
      return s.length === 2 && s.every((x) => x > 0) ? s : null;
    }));
    expect(first.get(1)).to.deep.equal(first.get(2));
    const records = batch(20);
    expect((await produce(0, records)).responses[0].partitionResponses[0].errorCode).to.equal(ErrorCode.NONE);
    for (const broker of [1, 2]) {
      const [before0, before1] = first.get(broker)!;
      await checkFor(async () => {
        const [s0, s1] = await sizes(broker);
        return s0 === before0! + records.length && s1 === before1;
      });
    }
  });

  it('answers only for the partitions asked for, and with nothing for a topic it does not hold', async () => {
    for (const v of [0, 2, 4]) {
      const one = await describeDirs(1, v, [{ topic: TOPIC, partitions: [1] }]);
      expect(one.results[0].topics.map((t: { name: string }) => t.name)).to.deep.equal([TOPIC]);
      expect([...partitionsOf(one, TOPIC).keys()]).to.deep.equal([1]);
      const unknown = await describeDirs(1, v, [{ topic: 'no-such-topic', partitions: [0, 1] }]);
      expect(unknown.results).to.have.length(1);
      expect(unknown.results[0].errorCode).to.equal(ErrorCode.NONE);
      expect(unknown.results[0].topics).to.deep.equal([]);
      const mixed = await describeDirs(2, v, [
        { topic: 'no-such-topic', partitions: [0] },
        { topic: TOPIC, partitions: [0, 7] },
      ]);
      expect(mixed.results[0].topics.map((t: { name: string }) => t.name)).to.deep.equal([TOPIC]);
      expect([...partitionsOf(mixed, TOPIC).keys()]).to.deep.equal([0]);
    }
  });
});

describe('Kafka API: DescribeLogDirs and AlterReplicaLogDirs with two log dirs per broker', function () {
  this.timeout(30_000);
  let c: KafkaTestCluster;
  let k: KafkaCaller;

  before(async () => {
    c = await startKafkaCluster({ brokers: 1, logDirsPerBroker: 2, topics: [{ name: 'jbod', partitions: 4, replicationFactor: 1 }] });
    k = await KafkaCaller.connect(c.bootstrap[0]!);
    await checkFor(async () => (await k.call(ApiKeys.Metadata, 9, { topics: [{ name: 'jbod' }], allowAutoTopicCreation: false })).topics[0].partitions.every((p: { leaderId: number }) => p.leaderId === 1), 10_000, 20);
  });
  after(async () => {
    k?.end();
    await c?.stop();
  });

  const dirs = () => [path.resolve(c.dir, 'broker-1'), path.resolve(c.dir, 'broker-1-1')];
  const jbodPartitions = (r: any): number[][] =>
    (r.results as { topics: { name: string; partitions: Partition[] }[] }[]).map((d) => (d.topics.find((t) => t.name === 'jbod')?.partitions ?? []).filter((p) => !p.isFutureKey).map((p) => p.partitionIndex).sort());
  const produce = (partition: number, records: Buffer) =>
    k.call(ApiKeys.Produce, 9, { transactionalId: null, acks: -1, timeoutMs: 5_000, topicData: [{ name: 'jbod', partitionData: [{ index: partition, records }] }] });

  it('lists both dirs, each with its partitions (spread two and two) and its volume', async () => {
    for (let v = 0; v <= 4; v++) {
      const r = await k.call(ApiKeys.DescribeLogDirs, v, { topics: null });
      expect(r.results.map((d: { logDir: string }) => d.logDir), `v${v}`).to.deep.equal(dirs());
      const parts = jbodPartitions(r);
      expect(parts.map((p) => p.length)).to.deep.equal([2, 2]);
      expect([...parts[0]!, ...parts[1]!].sort()).to.deep.equal([0, 1, 2, 3]);
      for (const d of r.results) {
        expect(d.errorCode).to.equal(ErrorCode.NONE);
        if (v >= 4) expect(d.totalBytes).to.be.greaterThan(0);
      }
    }
  });

  it('AlterReplicaLogDirs (v0-v2) moves a partition to the other dir with its records; unknown dirs and partitions get Kafka\'s errors', async () => {
    const before = jbodPartitions(await k.call(ApiKeys.DescribeLogDirs, 4, { topics: null }));
    const p = before[0]![0]!;
    expect((await produce(p, batch(10))).responses[0].partitionResponses[0].errorCode).to.equal(ErrorCode.NONE);
    const [d0, d1] = dirs() as [string, string];
    const r = await k.call(ApiKeys.AlterReplicaLogDirs, 2, {
      dirs: [
        { path: d1, topics: [{ name: 'jbod', partitions: [p] }] },
        { path: path.join(c.dir, 'not-a-log-dir'), topics: [{ name: 'jbod', partitions: [p] }] },
        { path: 'relative', topics: [{ name: 'other', partitions: [0] }] },
        { path: d0, topics: [{ name: 'no-such-topic', partitions: [0] }] },
      ],
    });
    expect(r.throttleTimeMs).to.equal(0);
    const codes = (r.results as { topicName: string; partitions: { partitionIndex: number; errorCode: number }[] }[]).flatMap((t) => t.partitions.map((x) => `${t.topicName}-${x.partitionIndex}:${x.errorCode}`)).sort();
    expect(codes).to.deep.equal([`jbod-${p}:${ErrorCode.LOG_DIR_NOT_FOUND}`, `jbod-${p}:${ErrorCode.NONE}`, `no-such-topic-0:${ErrorCode.REPLICA_NOT_AVAILABLE}`, `other-0:${ErrorCode.LOG_DIR_NOT_FOUND}`].sort());
    await checkFor(async () => jbodPartitions(await k.call(ApiKeys.DescribeLogDirs, 4, { topics: null }))[1]!.includes(p), 10_000, 20);
    const after = jbodPartitions(await k.call(ApiKeys.DescribeLogDirs, 4, { topics: null }));
    expect(after[0]).to.not.include(p);
    // the records came along, and it takes more where it is now
    expect((await produce(p, batch(5))).responses[0].partitionResponses[0]).to.include({ errorCode: ErrorCode.NONE, baseOffset: 10 });
    const fetched = await k.call(ApiKeys.Fetch, 12, {
      replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
      topics: [{ topic: 'jbod', partitions: [{ partition: p, currentLeaderEpoch: -1, fetchOffset: 0, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: 1 << 20 }] }],
      forgottenTopicsData: [], rackId: '',
    });
    const part = fetched.responses[0].partitions[0];
    expect(part.errorCode).to.equal(ErrorCode.NONE);
    expect(part.highWatermark).to.equal(15);
    // v0 and v1 are the same request: moving it back
    for (const v of [0, 1]) {
      const back = await k.call(ApiKeys.AlterReplicaLogDirs, v, { dirs: [{ path: d0, topics: [{ name: 'jbod', partitions: [p] }] }] });
      expect(back.results).to.deep.equal([{ topicName: 'jbod', partitions: [{ partitionIndex: p, errorCode: ErrorCode.NONE }] }]);
    }
    await checkFor(async () => jbodPartitions(await k.call(ApiKeys.DescribeLogDirs, 4, { topics: null }))[0]!.includes(p), 10_000, 20);
  });

  it('replica.alter.log.dirs.io.max.bytes.per.second set as the cluster default holds a move back while it runs; a higher value of the broker\'s own lets it finish; DescribeConfigs shows where each comes from', async () => {
    const KEY = 'replica.alter.log.dirs.io.max.bytes.per.second';
    const d1 = dirs()[1]!;
    const p = jbodPartitions(await k.call(ApiKeys.DescribeLogDirs, 4, { topics: null }))[0]![0]!;
    const base = (await produce(p, batch(10))).responses[0].partitionResponses[0].baseOffset as number;
    for (let i = 0; i < 4; i++) expect((await produce(p, batch(10))).responses[0].partitionResponses[0].errorCode).to.equal(ErrorCode.NONE);
    /** IncrementalAlterConfigs of the key on a broker resource ('' the cluster-wide default). */
    const alter = async (resourceName: string, op: number, value: string | null) => {
      const r = await k.call(ApiKeys.IncrementalAlterConfigs, 1, { resources: [{ resourceType: 4, resourceName, configs: [{ name: KEY, configOperation: op, value }] }], validateOnly: false });
      expect(r.responses[0].errorCode).to.equal(ErrorCode.NONE);
    };
    const described = async () => {
      const r = await k.call(ApiKeys.DescribeConfigs, 4, { resources: [{ resourceType: 4, resourceName: '1', configurationKeys: [KEY] }], includeSynonyms: true, includeDocumentation: false });
      return r.results[0].configs[0] as { name: string; value: string; configSource: number; readOnly: boolean; synonyms: { source: number }[] };
    };
    // Kafka's ConfigSource codes: DYNAMIC_BROKER_CONFIG 2, DYNAMIC_DEFAULT_BROKER_CONFIG 3, DEFAULT_CONFIG 5
    expect(await described()).to.include({ name: KEY, configSource: 5, readOnly: false });
    await alter('', 0, '1');
    // the broker describes what it applies: its metadata has the default once this shows it
    await checkFor(async () => (await described()).value === '1', 10_000, 20);
    const asDefault = await described();
    expect(asDefault).to.include({ configSource: 3, readOnly: false });
    expect(asDefault.synonyms.map((x) => x.source)).to.deep.equal([3, 5]);

    const moving = await k.call(ApiKeys.AlterReplicaLogDirs, 2, { dirs: [{ path: d1, topics: [{ name: 'jbod', partitions: [p] }] }] });
    expect(moving.results[0].partitions[0].errorCode).to.equal(ErrorCode.NONE);
    const future = async () => {
      const r = await k.call(ApiKeys.DescribeLogDirs, 4, { topics: [{ topic: 'jbod', partitions: [p] }] });
      return (r.results as { logDir: string; topics: { partitions: Partition[] }[] }[]).flatMap((d) => d.topics.flatMap((t) => t.partitions.filter((x) => x.isFutureKey).map((x) => ({ dir: d.logDir, ...x }))))[0];
    };
    // at 1 B/s a step copies one batch at most, and the next waits for the samples to age out
    // (12 s; the moves of the test before count too, as all of a broker's moves share the throttle)
    const held = await checkFor(future, 10_000, 20);
    expect(held.dir).to.equal(d1);
    expect(held.offsetLag).to.be.at.least(40);
    await new Promise((r) => setTimeout(r, 300));
    expect((await future())!.offsetLag, 'still held back').to.be.at.least(40);
    expect(jbodPartitions(await k.call(ApiKeys.DescribeLogDirs, 4, { topics: null }))[0]).to.include(p);

    // the broker's own value wins over the default: the move in progress takes it and finishes
    await alter('1', 0, '100000000');
    await checkFor(async () => jbodPartitions(await k.call(ApiKeys.DescribeLogDirs, 4, { topics: null }))[1]!.includes(p), 10_000, 20);
    expect(await future()).to.equal(undefined);
    const own = await described();
    expect(own).to.include({ value: '100000000', configSource: 2 });
    expect(own.synonyms.map((x) => x.source)).to.deep.equal([2, 3, 5]);
    // every record came along
    expect((await produce(p, batch(1))).responses[0].partitionResponses[0]).to.include({ errorCode: ErrorCode.NONE, baseOffset: base + 50 });
    await alter('1', 1, null);
    await alter('', 1, null);
    await checkFor(async () => (await described()).configSource === 5, 10_000, 20);
  });
});
