/**
 * Brokers with several log dirs (JBOD) on real in-process clusters: new partitions spread over
 * the dirs, a restart finds each log where it was, DescribeLogDirs and DescribeBroker list every
 * dir, topic deletion reaches every dir, and AlterReplicaLogDirs moves a replica's log between
 * the dirs of its broker while it is produced to.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import type { BrokerDescription, BrokerMsg, BrokerProduceResponse, FetchResponse, LogDirsDescription, ReplicaLogDirsAltered } from '../../../actors/broker/messages.js';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import type { ControllerReply } from '../../../actors/controller/messages.js';
import { brokerPath } from '../../../src/protocol/cluster.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import type { ActorRef, Message } from '../../../src/runtime/types.js';
import { isFailure } from '../../../src/runtime/types.js';
import { checkFor } from '../../helpers/check-for.js';
import { TestCluster } from '../../helpers/cluster.js';
import { KafkaCaller } from '../../helpers/raw-kafka.js';

describe('broker log dirs (JBOD, inproc brokers)', function () {
  this.timeout(60_000);
  let c: TestCluster;

  afterEach(async () => {
    await c?.stop();
  });

  const brokerRef = (id: number): ActorRef<BrokerMsg> => ({ node: `b${id}`, path: brokerPath(id) });
  const ask = async <R extends Message>(id: number, msg: BrokerMsg): Promise<R> => {
    const r = await c.system().ask<R>(brokerRef(id), msg, { timeoutMs: 10_000 });
    if (isFailure(r)) throw new Error(r.message);
    return r;
  };
  const readValues = async (topic: string, partition: number): Promise<string[]> => (await c.client.readAll(topic, partition)).map((r) => String(r.value));
  const hosted = (dir: string, topic: string) =>
    fs
      .readdirSync(dir)
      .filter((n) => n.startsWith(`${topic}-`) && /-\d+$/.test(n))
      .sort();

  it('spreads new partitions over the dirs, lists every dir, finds each log where it was after a restart, and deletes from every dir', async () => {
    c = await TestCluster.start({ brokers: 2, transport: 'inproc', logDirsPerBroker: 2 });
    await c.client.createTopic('spread', 4, 2);
    await c.client.waitForLeaders('spread');
    for (let p = 0; p < 4; p++) await c.client.produce('spread', p, [`r${p}`], -1);
    const [d0, d1] = c.logDirs(1) as [string, string];
    const before = [hosted(d0, 'spread'), hosted(d1, 'spread')];
    expect(before.map((l) => l.length)).to.deep.equal([2, 2]);

    const described = await ask<LogDirsDescription>(1, { type: 'DescribeLogDirs', topics: null });
    expect(described.logDirs.map((d) => d.logDir)).to.deep.equal([path.resolve(d0), path.resolve(d1)]);
    for (const [i, d] of described.logDirs.entries()) {
      expect(d.errorCode).to.equal(ErrorCode.NONE);
      expect(d.partitions.map((p) => `${p.topic}-${p.partition}`)).to.deep.equal(before[i]);
      expect(d.partitions.every((p) => p.size > 0 && !p.isFuture)).to.equal(true);
      expect(d.totalBytes).to.be.greaterThan(0);
    }
    const only = await ask<LogDirsDescription>(1, { type: 'DescribeLogDirs', topics: [{ topic: 'spread', partitions: [0] }] });
    expect(only.logDirs.flatMap((d) => d.partitions.map((p) => p.partition))).to.deep.equal([0]);
    expect(only.logDirs).to.have.length(2);
    const desc = await ask<BrokerDescription>(1, { type: 'DescribeBroker' });
    expect(desc.logDirs).to.deep.equal([
      { logDir: path.resolve(d0), partitions: 2 },
      { logDir: path.resolve(d1), partitions: 2 },
    ]);

    await c.killBroker(1);
    await c.startBroker(1);
    await c.client.waitForBrokers(2);
    await checkFor(async () => (await c.client.metadata()).topics.find((t) => t.name === 'spread')!.partitions.every((p) => p.isr.length === 2), 20_000, 50);
    expect([hosted(d0, 'spread'), hosted(d1, 'spread')]).to.deep.equal(before);
    await c.client.waitForLeaders('spread');
    for (let p = 0; p < 4; p++) {
      const values = await checkFor(() => readValues('spread', p).catch(() => null), 15_000, 50);
      expect(values).to.deep.equal([`r${p}`]);
    }

    const deleted = await c.system().ask<ControllerReply>(c.client.controller, { type: 'DeleteTopics', topics: ['spread'] }, { timeoutMs: 10_000 });
    expect(!isFailure(deleted) && deleted.type === 'DeleteTopicsResponse' && deleted.topics[0]!.errorCode).to.equal(0);
    await checkFor(() => [1, 2].every((b) => c.logDirs(b).every((d) => hosted(d, 'spread').length === 0)), 15_000, 20);
  });

  it('AlterReplicaLogDirs moves a replica to another dir of its broker while it is produced to: every record readable, the files moved, and there after a restart', async () => {
    c = await TestCluster.start({ brokers: 2, transport: 'inproc', logDirsPerBroker: 2, brokerConfig: { 'log.segment.bytes': 4096 } });
    await c.client.createTopics([{ name: 'mv', assignments: [[1, 2]] }]);
    await c.client.waitForLeaders('mv');
    const [d0, d1] = c.logDirs(1).map((d) => path.resolve(d)) as [string, string];
    expect(fs.existsSync(path.join(d0, 'mv-0'))).to.equal(true);
    const sent: string[] = [];
    for (let i = 0; i < 200; i++) sent.push(`before-${i}-${'x'.repeat(100)}`);
    for (let i = 0; i < sent.length; i += 20) await c.client.produce('mv', 0, sent.slice(i, i + 20), -1);
    const segments = fs.readdirSync(path.join(d0, 'mv-0')).filter((f) => f.endsWith('.log')).length;
    expect(segments).to.be.greaterThan(1);

    // errors first: a dir the broker does not have, a partition it does not host
    const bad = await ask<ReplicaLogDirsAltered>(1, {
      type: 'AlterReplicaLogDirs',
      dirs: [
        { logDir: path.join(c.dir, 'nowhere'), topics: [{ topic: 'mv', partitions: [0] }] },
        { logDir: d1, topics: [{ topic: 'absent', partitions: [3] }] },
      ],
    });
    expect(bad.results.map((r) => [r.topic, r.partition, r.errorCode])).to.deep.equal([
      ['mv', 0, ErrorCode.LOG_DIR_NOT_FOUND],
      ['absent', 3, ErrorCode.REPLICA_NOT_AVAILABLE],
    ]);

    // producing goes on while it moves
    let producing = true;
    const during: string[] = [];
    const producer = (async () => {
      for (let i = 0; producing && i < 500; i++) {
        const v = `during-${i}`;
        const r = await c.client.produce('mv', 0, [v], -1);
        if (r.errorCode === ErrorCode.NONE) during.push(v);
      }
    })();
    const moved = await ask<ReplicaLogDirsAltered>(1, { type: 'AlterReplicaLogDirs', dirs: [{ logDir: d1, topics: [{ topic: 'mv', partitions: [0] }] }] });
    expect(moved.results).to.deep.equal([{ topic: 'mv', partition: 0, logDir: d1, errorCode: ErrorCode.NONE, errorMessage: null }]);
    await checkFor(() => fs.existsSync(path.join(d1, 'mv-0')) && !fs.existsSync(path.join(d0, 'mv-0')), 15_000, 10);
    await checkFor(() => during.length >= 5, 15_000, 10);
    producing = false;
    await producer;

    expect(fs.readdirSync(d0).filter((n) => n.startsWith('mv-0'))).to.deep.equal([]);
    expect(fs.readdirSync(path.join(d1, 'mv-0')).filter((f) => f.endsWith('.log')).length).to.be.at.least(segments);
    const values = await readValues('mv', 0);
    const want = [...sent, ...during];
    // compared short: a long diff of 200 records says nothing
    const firstDiff = want.findIndex((v, i) => values[i] !== v);
    expect({ firstDiff, n: values.length }).to.deep.equal({ firstDiff: -1, n: want.length });
    const described = await ask<LogDirsDescription>(1, { type: 'DescribeLogDirs', topics: [{ topic: 'mv' }] });
    expect(described.logDirs.map((d) => [d.logDir, d.partitions.map((p) => p.isFuture)])).to.deep.equal([
      [d0, []],
      [d1, [false]],
    ]);
    // asking again for where it is already: nothing to do
    const again = await ask<ReplicaLogDirsAltered>(1, { type: 'AlterReplicaLogDirs', dirs: [{ logDir: d1, topics: [{ topic: 'mv', partitions: [0] }] }] });
    expect(again.results[0]!.errorCode).to.equal(ErrorCode.NONE);

    await c.killBroker(1);
    await c.startBroker(1);
    await c.client.waitForBrokers(2);
    await checkFor(async () => (await c.client.partition('mv', 0))?.isr.length === 2, 20_000, 50);
    expect(fs.existsSync(path.join(d1, 'mv-0'))).to.equal(true);
    expect(fs.existsSync(path.join(d0, 'mv-0'))).to.equal(false);
    // broker 1 leads again or follows: either way its copy holds every record
    const r = await c.client.produce('mv', 0, ['after-restart'], -1);
    expect(r.errorCode).to.equal(ErrorCode.NONE);
    const all = await checkFor(() => readValues('mv', 0).catch(() => null), 15_000, 50);
    expect(all.length).to.equal(sent.length + during.length + 1);
    expect(all[all.length - 1]).to.equal('after-restart');
  });

  it('AlterReplicaLogDirs for a partition not hosted yet: REPLICA_NOT_AVAILABLE, and its log is created in that dir when the replica comes', async () => {
    c = await TestCluster.start({ brokers: 1, transport: 'inproc', logDirsPerBroker: 2 });
    const [d0, d1] = c.logDirs(1).map((d) => path.resolve(d)) as [string, string];
    await c.client.createTopic('first', 1, 1); // d0, then d1 is the emptier
    await c.client.waitForLeaders('first');
    const r = await ask<ReplicaLogDirsAltered>(1, { type: 'AlterReplicaLogDirs', dirs: [{ logDir: d0, topics: [{ topic: 'later', partitions: [0] }] }] });
    expect(r.results[0]!.errorCode).to.equal(ErrorCode.REPLICA_NOT_AVAILABLE);
    await c.client.createTopic('later', 1, 1);
    await c.client.waitForLeaders('later');
    await checkFor(() => fs.existsSync(path.join(d0, 'later-0')), 10_000, 10);
    expect(fs.existsSync(path.join(d1, 'later-0'))).to.equal(false);
  });

  it('a log dir that fails goes offline as a whole: its replicas stop, the controller moves their leadership and ISR away, the other dir carries on', async () => {
    c = await TestCluster.start({ brokers: 2, transport: 'inproc', logDirsPerBroker: 2, kafka: true, brokerConfig: { 'log.segment.bytes': 1024 } });
    await c.client.createTopics([{ name: 'fail', assignments: [[1, 2], [1, 2], [1, 2], [1, 2]] }]);
    await c.client.waitForLeaders('fail');
    const [d0, d1] = c.logDirs(1).map((d) => path.resolve(d)) as [string, string];
    const inD0 = hosted(d0, 'fail').map((n) => Number(n.slice('fail-'.length)));
    const inD1 = hosted(d1, 'fail').map((n) => Number(n.slice('fail-'.length)));
    expect([inD0.length, inD1.length]).to.deep.equal([2, 2]);
    for (let p = 0; p < 4; p++) await c.client.produce('fail', p, ['before'], -1);

    // the disk goes: its files vanish, and the next segment roll (or checkpoint) fails
    fs.rmSync(d0, { recursive: true, force: true });
    const big = Array.from({ length: 10 }, (_, i) => `${i}-${'x'.repeat(200)}`);
    await c.client.produceOnce('fail', inD0[0]!, big, 1);
    await checkFor(async () => {
      const d = await ask<BrokerDescription>(1, { type: 'DescribeBroker' });
      return d.offlinePartitions.length === 2 ? d : null;
    }, 15_000, 20);
    expect((await ask<BrokerDescription>(1, { type: 'DescribeBroker' })).offlinePartitions).to.deep.equal(inD0.map((p) => `fail-${p}`).sort());
    // the controller heard it in a heartbeat: broker 2 leads them, broker 1 left their ISR
    await checkFor(async () => {
      const t = (await c.client.metadata()).topics.find((x) => x.name === 'fail')!;
      return inD0.every((p) => t.partitions[p]!.leader === 2 && t.partitions[p]!.isr.join() === '2') ? t : null;
    }, 15_000, 20);
    const t = (await c.client.metadata()).topics.find((x) => x.name === 'fail')!;
    for (const p of inD1) expect(t.partitions[p]!, `fail-${p}`).to.deep.include({ leader: 1 });
    for (const p of inD1) expect(t.partitions[p]!.isr.sort(), `fail-${p}`).to.deep.equal([1, 2]);
    // every partition takes records: those of the failed dir on broker 2, the others still on broker 1
    for (let p = 0; p < 4; p++) expect((await c.client.produce('fail', p, ['after'], -1)).errorCode, `fail-${p}`).to.equal(ErrorCode.NONE);
    for (const p of inD1) expect((await readValues('fail', p)).slice(-1)).to.deep.equal(['after']);

    // asked of broker 1, the partitions of its failed dir answer KAFKA_STORAGE_ERROR (as Kafka's
    // offline replicas), not NOT_LEADER_OR_FOLLOWER; those of the other dir are served
    const fetched = await ask<FetchResponse>(1, {
      type: 'Fetch',
      replicaId: -1,
      maxWaitMs: 0,
      minBytes: 0,
      maxBytes: 1 << 20,
      partitions: [inD0[0]!, inD1[0]!].map((partition) => ({ topic: 'fail', partition, fetchOffset: 0, currentLeaderEpoch: -1, partitionMaxBytes: 1 << 20 })),
    });
    expect(fetched.partitions.map((p) => p.errorCode)).to.deep.equal([ErrorCode.KAFKA_STORAGE_ERROR, ErrorCode.NONE]);
    const produced = await ask<BrokerProduceResponse>(1, { type: 'Produce', acks: 1, timeoutMs: 5_000, partitions: [{ topic: 'fail', partition: inD0[0]!, records: new Uint8Array(0) }] });
    expect(produced.partitions[0]!.errorCode).to.equal(ErrorCode.KAFKA_STORAGE_ERROR);
    const wire = await KafkaCaller.connect((await c.kafkaBootstrap())[0]!);
    try {
      const offsets = await wire.call(ApiKeys.ListOffsets, 7, {
        replicaId: -1,
        isolationLevel: 0,
        topics: [{ name: 'fail', partitions: [inD0[0]!, inD1[0]!].map((partitionIndex) => ({ partitionIndex, currentLeaderEpoch: -1, timestamp: -1 })) }],
      });
      expect(offsets.topics[0].partitions.map((p: { errorCode: number }) => p.errorCode)).to.deep.equal([ErrorCode.KAFKA_STORAGE_ERROR, ErrorCode.NONE]);
      // Metadata lists broker 1's replicas of the failed dir as offline (as Kafka's, from the heartbeats' report)
      const md = await wire.call(ApiKeys.Metadata, 12, { topics: [{ name: 'fail' }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
      const offline = new Map<number, number[]>(md.topics[0].partitions.map((p: { partitionIndex: number; offlineReplicas: number[] }) => [p.partitionIndex, p.offlineReplicas]));
      for (const p of inD0) expect(offline.get(p), `fail-${p}`).to.deep.equal([1]);
      for (const p of inD1) expect(offline.get(p), `fail-${p}`).to.deep.equal([]);
    } finally {
      wire.socket.end();
    }

    const described = await ask<LogDirsDescription>(1, { type: 'DescribeLogDirs', topics: null });
    const byDir = new Map(described.logDirs.map((d) => [d.logDir, d]));
    expect(byDir.get(d0)).to.deep.include({ errorCode: ErrorCode.KAFKA_STORAGE_ERROR, partitions: [] });
    expect(byDir.get(d1)!.errorCode).to.equal(ErrorCode.NONE);
    expect(byDir.get(d1)!.partitions.map((p) => p.partition).sort()).to.deep.equal([...inD1].sort());
    // nothing moves into a failed dir, nor out of one
    const moved = await ask<ReplicaLogDirsAltered>(1, {
      type: 'AlterReplicaLogDirs',
      dirs: [
        { logDir: d0, topics: [{ topic: 'fail', partitions: [inD1[0]!] }] },
        { logDir: d1, topics: [{ topic: 'fail', partitions: [inD0[0]!] }] },
      ],
    });
    expect(moved.results.map((r) => r.errorCode)).to.deep.equal([ErrorCode.KAFKA_STORAGE_ERROR, ErrorCode.KAFKA_STORAGE_ERROR]);
    // a new topic goes to the dir still online
    await c.client.createTopics([{ name: 'later', assignments: [[1], [1]] }]);
    await c.client.waitForLeaders('later');
    expect(hosted(d1, 'later')).to.deep.equal(['later-0', 'later-1']);

    // restarted with the dir still unusable (a file where it was): it starts on the other dir;
    // the replicas it cannot find stay offline rather than start empty elsewhere
    await c.killBroker(1);
    fs.writeFileSync(d0, 'not a dir');
    await c.startBroker(1);
    await c.client.waitForBrokers(2);
    await checkFor(async () => (await ask<BrokerDescription>(1, { type: 'DescribeBroker' })).offlinePartitions.length === 2, 15_000, 20);
    expect((await ask<BrokerDescription>(1, { type: 'DescribeBroker' })).offlinePartitions).to.deep.equal(inD0.map((p) => `fail-${p}`).sort());
    expect(hosted(d1, 'fail').map((n) => Number(n.slice('fail-'.length))).sort()).to.deep.equal([...inD1].sort());
    await checkFor(async () => (await c.client.metadata()).topics.find((x) => x.name === 'fail')!.partitions.every((p) => (inD0.includes(p.partition) ? p.isr.join() === '2' : p.isr.length === 2)), 15_000, 20);
    const again = await ask<LogDirsDescription>(1, { type: 'DescribeLogDirs', topics: null });
    expect(again.logDirs.find((d) => d.logDir === d0)).to.deep.include({ errorCode: ErrorCode.KAFKA_STORAGE_ERROR, partitions: [] });

    // the disk replaced (an empty dir): the replicas come back empty and catch up from the leader
    await c.killBroker(1);
    fs.rmSync(d0, { force: true });
    await c.startBroker(1);
    await c.client.waitForBrokers(2);
    await checkFor(async () => (await c.client.metadata()).topics.find((x) => x.name === 'fail')!.partitions.every((p) => p.isr.length === 2), 20_000, 50);
    expect((await ask<BrokerDescription>(1, { type: 'DescribeBroker' })).offlinePartitions).to.deep.equal([]);
    // registered again: nothing offline in the metadata any more
    expect((await c.client.metadata()).brokers.find((b) => b.brokerId === 1)).to.not.have.property('offlineReplicas');
  });
});
