/**
 * AddRaftVoter (80) and RemoveRaftVoter (81) over the Kafka protocol (KIP-853), what the Java
 * admin's addRaftVoter / removeRaftVoter send a broker: a topology with one controller and a
 * second started as an observer; DescribeQuorum v2 lists the observer with its directory id;
 * AddRaftVoter makes it a voter, RemoveRaftVoter takes the first out (the active controller:
 * the other takes over), with Kafka's errors on the way (INCONSISTENT_CLUSTER_ID,
 * DUPLICATE_VOTER, VOTER_NOT_FOUND, a directory id not the controller's). With an authorizer
 * both need ALTER on the cluster.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../../src/security/acl.js';
import type { TopologyConfig } from '../../../src/topology/config.js';
import { startCluster, type ClusterHandle } from '../../../src/topology/start-cluster.js';
import { authorizedKafkaClusterPerSuite } from '../../helpers/authorized-kafka.js';
import { checkFor } from '../../helpers/check-for.js';
import { KafkaCaller } from '../../helpers/raw-kafka.js';

const { NONE, CLUSTER_AUTHORIZATION_FAILED, DUPLICATE_VOTER, VOTER_NOT_FOUND, INCONSISTENT_CLUSTER_ID } = ErrorCode;
const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';
const METADATA = '__cluster_metadata';

interface Replica {
  replicaId: number;
  replicaDirectoryId: string;
  logEndOffset: number;
}

async function quorum(k: KafkaCaller): Promise<{ leaderId: number; voters: Replica[]; observers: Replica[] }> {
  const r = await k.call(ApiKeys.DescribeQuorum, 2, { topics: [{ topicName: METADATA, partitions: [{ partitionIndex: 0 }] }] });
  const p = r.topics[0].partitions[0];
  return { leaderId: p.leaderId, voters: p.currentVoters, observers: p.observers };
}

const addVoter = (k: KafkaCaller, voterId: number, voterDirectoryId: string, clusterId: string | null = null, version = 0, ackWhenCommitted = true) =>
  k.call(ApiKeys.AddRaftVoter, version, { clusterId, timeoutMs: 10_000, voterId, voterDirectoryId, listeners: [{ name: 'CONTROLLER', host: 'localhost', port: 9093 }], ackWhenCommitted });
const removeVoter = (k: KafkaCaller, voterId: number, voterDirectoryId: string, clusterId: string | null = null) =>
  k.call(ApiKeys.RemoveRaftVoter, 0, { clusterId, voterId, voterDirectoryId });

describe('Kafka API: AddRaftVoter and RemoveRaftVoter', function () {
  this.timeout(60_000);
  let dir: string;
  let h: ClusterHandle;
  let k: KafkaCaller;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-kafka-voters-'));
    const t: TopologyConfig = {
      clusterId: 'voters-kafka-test',
      logLevel: 'silent',
      nodes: ['main', 'c1', 'c2', 'b1'].map((id) => ({ id, kind: 'inproc' as const })),
      controller: { quorum: [{ id: 1, node: 'c1', metadataDir: 'c1' }], observers: [{ id: 2, node: 'c2', metadataDir: 'c2' }], config: { 'controller.quorum.election.timeout.ms': 300 } },
      brokers: [{ id: 1, node: 'b1', logDir: 'b1', kafka: { host: '127.0.0.1', port: 0 }, config: { 'broker.heartbeat.interval.ms': 200 } }],
    };
    h = await startCluster(t, { baseDir: dir });
    k = await KafkaCaller.connect((await h.kafkaBrokers())[0]!);
  });
  after(async () => {
    k?.end();
    await h?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('ApiVersions advertises AddRaftVoter v0-v1 and RemoveRaftVoter v0', async () => {
    const r = await k.call(ApiKeys.ApiVersions, 3, { clientSoftwareName: 'test', clientSoftwareVersion: '1' });
    expect(r.apiKeys.find((a: { apiKey: number }) => a.apiKey === ApiKeys.AddRaftVoter)).to.deep.include({ minVersion: 0, maxVersion: 1 });
    expect(r.apiKeys.find((a: { apiKey: number }) => a.apiKey === ApiKeys.RemoveRaftVoter)).to.deep.include({ minVersion: 0, maxVersion: 0 });
  });

  it('adds the observer, then removes the first controller (the active one): DescribeQuorum follows; Kafka\'s errors on the way', async () => {
    const seen = await checkFor(async () => {
      const q = await quorum(k);
      return q.leaderId === 1 && q.observers.length === 1 ? q : null;
    }, 15_000, 50);
    expect(seen.voters.map((v) => v.replicaId)).to.deep.equal([1]);
    const observer = seen.observers[0]!;
    expect(observer.replicaId).to.equal(2);
    expect(observer.replicaDirectoryId).to.not.equal(ZERO_UUID);
    const dir1 = seen.voters[0]!.replicaDirectoryId;

    expect(await addVoter(k, 2, observer.replicaDirectoryId, 'another-cluster')).to.deep.include({ errorCode: INCONSISTENT_CLUSTER_ID });
    // a directory id that is not its own names no observer the leader follows
    expect((await addVoter(k, 2, 'p5LbnVf1Ta6MbU9Zh0DpAQ')).errorCode).to.equal(ErrorCode.REQUEST_TIMED_OUT);
    await checkFor(async () => (await addVoter(k, 2, observer.replicaDirectoryId, 'voters-kafka-test')).errorCode === NONE, 10_000, 100);
    const both = await quorum(k);
    expect(both.voters.map((v) => [v.replicaId, v.replicaDirectoryId])).to.deep.equal([
      [1, dir1],
      [2, observer.replicaDirectoryId],
    ]);
    expect(both.observers).to.deep.equal([]);
    const duplicate = await addVoter(k, 2, observer.replicaDirectoryId);
    expect(duplicate.errorCode).to.equal(DUPLICATE_VOTER);
    expect(duplicate.errorMessage).to.match(/already a voter/);
    expect((await removeVoter(k, 7, ZERO_UUID)).errorCode).to.equal(VOTER_NOT_FOUND);
    expect((await removeVoter(k, 1, observer.replicaDirectoryId)).errorCode).to.equal(VOTER_NOT_FOUND);

    expect(await removeVoter(k, 1, dir1)).to.deep.equal({ throttleTimeMs: 0, errorCode: NONE, errorMessage: null });
    const after = await checkFor(async () => {
      const q = await quorum(k).catch(() => null);
      return q && q.leaderId === 2 && q.observers.length === 1 ? q : null;
    }, 15_000, 50);
    expect(after.voters.map((v) => v.replicaId)).to.deep.equal([2]);
    expect(after.observers.map((v) => v.replicaId)).to.deep.equal([1]);
  });

  it('v1 with AckWhenCommitted false (KIP-1186) adds the removed controller back, answered once written; the change is then committed as any', async () => {
    const back = await checkFor(async () => {
      const q = await quorum(k).catch(() => null);
      return q && q.leaderId === 2 && q.observers.length === 1 ? q.observers[0]! : null;
    }, 15_000, 50);
    // Kafka's errors come first, as at v0
    // (once the new active controller is reached)
    const refused = await checkFor(async () => {
      const r = await addVoter(k, 1, back.replicaDirectoryId, 'another-cluster', 1, false);
      return r.errorCode === ErrorCode.REQUEST_TIMED_OUT ? null : r;
    }, 10_000, 100);
    expect(refused.errorCode).to.equal(INCONSISTENT_CLUSTER_ID);
    await checkFor(async () => (await addVoter(k, 1, back.replicaDirectoryId, null, 1, false)).errorCode === NONE, 10_000, 100);
    const both = await checkFor(async () => {
      const q = await quorum(k);
      return q.voters.length === 2 ? q : null;
    }, 10_000, 50);
    expect(both.voters.map((v) => v.replicaId).sort()).to.deep.equal([1, 2]);
    expect(both.observers).to.deep.equal([]);
    // a second change waits for the first to commit (REQUEST_TIMED_OUT until then), as Kafka's
    const again = await checkFor(async () => {
      const r = await addVoter(k, 1, back.replicaDirectoryId, null, 1, false);
      return r.errorCode === ErrorCode.REQUEST_TIMED_OUT ? null : r;
    }, 10_000, 100);
    expect(again.errorCode).to.equal(DUPLICATE_VOTER);
  });
});

describe('Kafka API: AddRaftVoter and RemoveRaftVoter with an authorizer', function () {
  this.timeout(30_000);
  const cluster = authorizedKafkaClusterPerSuite({ alice: 'alice-secret' }, { brokers: 1 });

  it('need ALTER on the cluster: else CLUSTER_AUTHORIZATION_FAILED, the controller not asked', async () => {
    const root = await cluster().login('admin');
    const alice = await cluster().login('alice');
    const denied = { throttleTimeMs: 0, errorCode: CLUSTER_AUTHORIZATION_FAILED, errorMessage: 'Cluster authorization failed.' };
    expect(await addVoter(alice, 2, ZERO_UUID)).to.deep.equal(denied);
    expect(await removeVoter(alice, 1, ZERO_UUID)).to.deep.equal(denied);
    // the admin may: the controller answers (the only voter cannot be removed)
    expect((await removeVoter(root, 1, ZERO_UUID)).errorCode).to.equal(VOTER_NOT_FOUND);
    await cluster().allow({ principal: 'User:alice', operation: AclOperation.ALTER, resourceType: ResourceType.CLUSTER, resourceName: CLUSTER_NAME });
    expect((await removeVoter(alice, 1, ZERO_UUID)).errorCode).to.equal(VOTER_NOT_FOUND);
  });
});
