/**
 * DescribeQuorum (55, v0-v2) over the Kafka protocol, what `kafka-metadata-quorum.sh
 * --bootstrap-server ... describe --status / --replication` sends a broker: the metadata quorum
 * as its leader sees it (__cluster_metadata partition 0), asked through the broker's controller
 * channel. A single controller is a quorum of one; with three controllers every voter is listed
 * with its log end offset and Kafka's fetch and caught-up times, a dead follower's times stop
 * while the live one's go on, and with no majority left it is NOT_LEADER_OR_FOLLOWER. Anything
 * but __cluster_metadata-0 is UNKNOWN_TOPIC_OR_PARTITION; with an authorizer it needs DESCRIBE on
 * the cluster.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { ErrorCode, errorInfo } from '../../../src/protocol/errors.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../../src/security/acl.js';
import type { TopologyConfig } from '../../../src/topology/config.js';
import { startCluster, type ClusterHandle } from '../../../src/topology/start-cluster.js';
import { startAuthorizedKafkaCluster, type AuthorizedKafkaCluster } from '../../helpers/authorized-kafka.js';
import { checkFor } from '../../helpers/check-for.js';
import { startKafkaCluster, type KafkaTestCluster } from '../../helpers/kafka-cluster.js';
import { KafkaCaller } from '../../helpers/raw-kafka.js';

const { NONE, UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER, CLUSTER_AUTHORIZATION_FAILED } = ErrorCode;
const METADATA = '__cluster_metadata';
const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';

interface ReplicaState {
  replicaId: number;
  replicaDirectoryId: string;
  logEndOffset: number;
  lastFetchTimestamp: number;
  lastCaughtUpTimestamp: number;
}
interface QuorumPartition {
  partitionIndex: number;
  errorCode: number;
  errorMessage: string | null;
  leaderId: number;
  leaderEpoch: number;
  highWatermark: number;
  currentVoters: ReplicaState[];
  observers: ReplicaState[];
}
interface DescribeQuorumAnswer {
  errorCode: number;
  errorMessage: string | null;
  topics: { topicName: string; partitions: QuorumPartition[] }[];
  nodes: unknown[];
}

/** What the Java admin sends: __cluster_metadata partition 0 (or the topics given). */
const describeQuorum = (k: KafkaCaller, version: number, topics = [{ topicName: METADATA, partitions: [{ partitionIndex: 0 }] }]): Promise<DescribeQuorumAnswer> =>
  k.call(ApiKeys.DescribeQuorum, version, { topics });

/** The metadata partition of an answer, checked to be the only one and without error. */
function partitionOf(r: DescribeQuorumAnswer): QuorumPartition {
  expect(r.errorCode).to.equal(NONE);
  expect(r.topics.map((t) => [t.topicName, t.partitions.map((p) => p.partitionIndex)])).to.deep.equal([[METADATA, [0]]]);
  const p = r.topics[0]!.partitions[0]!;
  expect(p.errorCode, p.errorMessage ?? '').to.equal(NONE);
  return p;
}

describe('Kafka API: DescribeQuorum, a single controller', function () {
  this.timeout(30_000);
  let c: KafkaTestCluster;
  let k: KafkaCaller;

  before(async () => {
    c = await startKafkaCluster({ brokers: 1, topics: [{ name: 'some', partitions: 1, replicationFactor: 1 }] });
    k = await KafkaCaller.connect(c.bootstrap[0]!);
  });
  after(async () => {
    k?.end();
    await c?.stop();
  });

  it('ApiVersions advertises DescribeQuorum v0-2', async () => {
    const r = await k.call(ApiKeys.ApiVersions, 3, { clientSoftwareName: 'test', clientSoftwareVersion: '1' });
    expect(r.apiKeys.find((a: { apiKey: number }) => a.apiKey === ApiKeys.DescribeQuorum)).to.deep.include({ minVersion: 0, maxVersion: 2 });
  });

  it('is a quorum of one that leads, caught up with itself: the same answer as samsa admin describeMetadataQuorum (v0, v1, v2)', async () => {
    const admin = c.handle.samsa('quorum-of-one').admin();
    await admin.connect();
    const samsa = await admin.describeMetadataQuorum();
    await admin.disconnect();
    for (const v of [0, 1, 2]) {
      const before = Date.now();
      const r = await describeQuorum(k, v);
      const p = partitionOf(r);
      expect([p.leaderId, p.leaderEpoch, p.highWatermark]).to.deep.equal([samsa.leaderId, samsa.leaderEpoch, samsa.highWatermark]);
      expect(p.leaderId).to.equal(1);
      expect(p.highWatermark).to.be.greaterThan(0);
      expect(p.observers).to.deep.equal([]);
      expect(p.currentVoters).to.have.length(1);
      const me = p.currentVoters[0]!;
      expect([me.replicaId, me.logEndOffset]).to.deep.equal([1, samsa.voters[0]!.logEndOffset]);
      expect(me.logEndOffset).to.be.at.least(p.highWatermark);
      if (v === 0) {
        // not in v0: the defaults
        expect([me.lastFetchTimestamp, me.lastCaughtUpTimestamp]).to.deep.equal([-1, -1]);
      } else {
        // the leader reports itself fetched and caught up now, as Kafka's does
        expect(me.lastFetchTimestamp).to.be.within(before - 1_000, Date.now());
        expect(me.lastCaughtUpTimestamp).to.equal(me.lastFetchTimestamp);
      }
      if (v === 2) {
        expect(r.errorMessage).to.equal(null);
        expect(p.errorMessage).to.equal(null);
        // its metadata dir's directory id, as admin describeMetadataQuorum tells it
        expect(me.replicaDirectoryId).to.equal(samsa.voters[0]!.directoryId);
        expect(me.replicaDirectoryId).to.not.equal(ZERO_UUID);
        expect(r.nodes).to.deep.equal([]);
      }
    }
  });

  it('anything but __cluster_metadata partition 0 is UNKNOWN_TOPIC_OR_PARTITION on each partition asked, as Kafka', async () => {
    const message = 'This server does not host this topic-partition.';
    const other = await describeQuorum(k, 2, [{ topicName: 'some', partitions: [{ partitionIndex: 0 }] }]);
    expect(other.errorCode).to.equal(NONE);
    expect(other.topics.map((t) => [t.topicName, t.partitions.map((p) => [p.partitionIndex, p.errorCode, p.errorMessage])])).to.deep.equal([['some', [[0, UNKNOWN_TOPIC_OR_PARTITION, message]]]]);
    const two = await describeQuorum(k, 1, [{ topicName: METADATA, partitions: [{ partitionIndex: 0 }, { partitionIndex: 1 }] }]);
    expect(two.topics.map((t) => [t.topicName, t.partitions.map((p) => [p.partitionIndex, p.errorCode])])).to.deep.equal([
      [
        METADATA,
        [
          [0, UNKNOWN_TOPIC_OR_PARTITION],
          [1, UNKNOWN_TOPIC_OR_PARTITION],
        ],
      ],
    ]);
    const wrongPartition = await describeQuorum(k, 0, [{ topicName: METADATA, partitions: [{ partitionIndex: 1 }] }]);
    expect(wrongPartition.topics[0]!.partitions.map((p) => [p.partitionIndex, p.errorCode])).to.deep.equal([[1, UNKNOWN_TOPIC_OR_PARTITION]]);
    expect((await describeQuorum(k, 2, [])).topics).to.deep.equal([]);
  });
});

describe('Kafka API: DescribeQuorum, three controllers', function () {
  this.timeout(90_000);
  let dir: string;
  let h: ClusterHandle;
  let k: KafkaCaller;

  function topology(): TopologyConfig {
    return {
      clusterId: 'quorum-kafka-test',
      logLevel: 'silent',
      nodes: ['main', 'c1', 'c2', 'c3', 'b1'].map((id) => ({ id, kind: 'inproc' as const })),
      controller: {
        quorum: [1, 2, 3].map((id) => ({ id, node: `c${id}`, metadataDir: `c${id}` })),
        config: { 'controller.quorum.election.timeout.ms': 400 },
      },
      brokers: [{ id: 1, node: 'b1', logDir: 'b1', kafka: { host: '127.0.0.1', port: 0 }, config: { 'broker.heartbeat.interval.ms': 300 } }],
    };
  }

  /** The leader's answer once every voter holds all the leader has. */
  const caughtUp = (atLeast = 0) =>
    checkFor(async () => {
      const r = await describeQuorum(k, 1);
      const p = r.topics[0]?.partitions[0];
      if (!p || p.errorCode !== NONE || p.highWatermark <= atLeast) return null;
      const end = p.currentVoters.find((v) => v.replicaId === p.leaderId)!.logEndOffset;
      return p.currentVoters.every((v) => v.logEndOffset === end) ? p : null;
    }, 15_000, 50);

  const createTopic = async (name: string) => {
    const r = await k.call(ApiKeys.CreateTopics, 5, { topics: [{ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5_000, validateOnly: false });
    expect(r.topics[0].errorCode).to.equal(NONE);
  };

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-kafka-quorum-'));
    h = await startCluster(topology(), { baseDir: dir });
    k = await KafkaCaller.connect((await h.kafkaBrokers())[0]!);
    // the broker must have registered before it creates topics
    await checkFor(async () => ((await k.call(ApiKeys.Metadata, 9, { topics: [], allowAutoTopicCreation: false })).brokers.length === 1 ? true : null), 15_000, 50);
  });
  afterEach(async () => {
    k?.end();
    await h?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("lists every voter from the leader's view: log end offsets, recent fetch and caught-up times; the high watermark grows with the metadata", async () => {
    const p = await caughtUp();
    expect([1, 2, 3]).to.include(p.leaderId);
    expect(p.leaderEpoch).to.be.at.least(1);
    expect(p.currentVoters.map((v) => v.replicaId)).to.deep.equal([1, 2, 3]);
    expect(p.observers).to.deep.equal([]);
    const now = Date.now();
    for (const v of p.currentVoters) {
      expect(v.logEndOffset).to.be.at.least(p.highWatermark);
      // followers answer the leader's heartbeats: fetched and caught up within moments
      expect(v.lastFetchTimestamp).to.be.within(now - 5_000, now);
      expect(v.lastCaughtUpTimestamp).to.be.within(now - 5_000, v.lastFetchTimestamp);
    }
    // the same leader and epoch as samsa's admin sees
    const admin = h.samsa('quorum-admin').admin();
    await admin.connect();
    const samsa = await admin.describeMetadataQuorum();
    await admin.disconnect();
    expect([samsa.leaderId, samsa.leaderEpoch]).to.deep.equal([p.leaderId, p.leaderEpoch]);

    await createTopic('grow');
    const after = await caughtUp(p.highWatermark);
    expect([after.leaderId, after.leaderEpoch]).to.deep.equal([p.leaderId, p.leaderEpoch]);
  });

  it("a dead follower's fetch and caught-up times stop and its log end falls behind; the live one keeps up; with no majority left, NOT_LEADER_OR_FOLLOWER", async () => {
    const p = await caughtUp();
    const [dead, live] = p.currentVoters.filter((v) => v.replicaId !== p.leaderId).map((v) => v.replicaId);
    await h.killNode(`c${dead}`);
    const killedAt = Date.now();
    await createTopic('without-one');
    const behind = await checkFor(async () => {
      const q = partitionOf(await describeQuorum(k, 2));
      const end = q.currentVoters.find((v) => v.replicaId === q.leaderId)!.logEndOffset;
      const d = q.currentVoters.find((v) => v.replicaId === dead)!;
      const l = q.currentVoters.find((v) => v.replicaId === live)!;
      return d.logEndOffset < end && l.logEndOffset === end && l.lastCaughtUpTimestamp > killedAt + 500 ? q : null;
    }, 15_000, 100);
    expect(behind.leaderId).to.equal(p.leaderId);
    const d = behind.currentVoters.find((v) => v.replicaId === dead)!;
    expect(d.lastFetchTimestamp).to.be.within(0, killedAt);
    expect(d.lastCaughtUpTimestamp).to.be.within(0, d.lastFetchTimestamp);
    expect(behind.highWatermark).to.be.greaterThan(p.highWatermark);

    // the second follower dies too: the leader steps down (check-quorum) and no one can lead
    await h.killNode(`c${live}`);
    const none = await checkFor(async () => {
      const r = await describeQuorum(k, 2);
      return r.topics[0]?.partitions[0]?.errorCode === NOT_LEADER_OR_FOLLOWER ? r : null;
    }, 20_000, 100);
    expect(none.errorCode).to.equal(NONE);
    expect(none.topics.map((t) => [t.topicName, t.partitions.map((q) => [q.partitionIndex, q.errorCode, q.errorMessage])])).to.deep.equal([
      [METADATA, [[0, NOT_LEADER_OR_FOLLOWER, errorInfo(NOT_LEADER_OR_FOLLOWER).message]]],
    ]);
  });

  it('after the leader dies another leads in a later epoch; the dead one, never heard from by it, has no log end offset or times (-1), as in Kafka', async () => {
    const p = await caughtUp();
    await h.killNode(`c${p.leaderId}`);
    const next = await checkFor(async () => {
      const q = (await describeQuorum(k, 1)).topics[0]?.partitions[0];
      // a new leader knows the high watermark once an entry of its own term is committed (-1 until then)
      return q && q.errorCode === NONE && q.leaderId !== p.leaderId && q.highWatermark >= 0 ? q : null;
    }, 20_000, 100);
    expect(next.leaderEpoch).to.be.greaterThan(p.leaderEpoch);
    expect(next.highWatermark).to.be.greaterThan(p.highWatermark);
    const old = next.currentVoters.find((v) => v.replicaId === p.leaderId)!;
    expect(old).to.deep.include({ logEndOffset: -1, lastFetchTimestamp: -1, lastCaughtUpTimestamp: -1 });
    const other = next.currentVoters.find((v) => v.replicaId !== p.leaderId && v.replicaId !== next.leaderId)!;
    await checkFor(async () => {
      const q = partitionOf(await describeQuorum(k, 1));
      const o = q.currentVoters.find((v) => v.replicaId === other.replicaId)!;
      return o.logEndOffset === q.currentVoters.find((v) => v.replicaId === q.leaderId)!.logEndOffset && o.lastCaughtUpTimestamp > 0;
    }, 10_000, 50);
  });
});

describe('Kafka API: DescribeQuorum with an authorizer', function () {
  this.timeout(30_000);
  let a: AuthorizedKafkaCluster;
  let root: KafkaCaller;
  let alice: KafkaCaller;

  before(async () => {
    a = await startAuthorizedKafkaCluster({ alice: 'alice-secret' }, { brokers: 1 });
    root = await a.login('admin');
    alice = await a.login('alice');
  });
  after(async () => {
    await a?.stop();
  });

  it('needs DESCRIBE on the cluster: else CLUSTER_AUTHORIZATION_FAILED at the top (with its message from v2), answered once allowed', async () => {
    expect(partitionOf(await describeQuorum(root, 2)).leaderId).to.equal(1);
    expect(await describeQuorum(alice, 2)).to.deep.equal({ errorCode: CLUSTER_AUTHORIZATION_FAILED, errorMessage: 'Cluster authorization failed.', topics: [], nodes: [] });
    expect(await describeQuorum(alice, 0)).to.deep.include({ errorCode: CLUSTER_AUTHORIZATION_FAILED, topics: [] });
    // nor does a topic ACL do
    await a.allow(
      { principal: 'User:alice', operation: AclOperation.DESCRIBE, resourceType: ResourceType.TOPIC, resourceName: METADATA },
      { principal: 'User:alice', operation: AclOperation.DESCRIBE, resourceType: ResourceType.CLUSTER, resourceName: CLUSTER_NAME },
    );
    expect(partitionOf(await describeQuorum(alice, 2)).leaderId).to.equal(1);
  });
});
