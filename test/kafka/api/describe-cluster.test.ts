/**
 * DescribeCluster (60, v0-v2) over the Kafka protocol, as Kafka's broker answers it: the cluster
 * id, the live brokers with their Kafka listener host, port and rack (as Metadata gives them; a
 * broker whose session expired drops out), a random live broker as controller id (a KRaft
 * broker's answer), the cluster authorized operations only when asked; endpoint type 2
 * (controllers) refused MISMATCHED_ENDPOINT_TYPE and unknown types UNSUPPORTED_ENDPOINT_TYPE.
 * v2 (KIP-1073): each broker's IsFenced, and with IncludeFencedBrokers the fenced brokers too
 * (not before v2). With an authorizer anyone may describe the cluster; the operations asked for
 * are the client's own, none without DESCRIBE on the cluster.
 */
import { expect } from 'chai';
import { CLUSTER_OPERATIONS, OPERATIONS_NOT_REQUESTED } from '../../../src/kafka/api/authorized-operations.js';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../../src/security/acl.js';
import { startAuthorizedKafkaCluster, type AuthorizedKafkaCluster } from '../../helpers/authorized-kafka.js';
import { checkFor } from '../../helpers/check-for.js';
import { startKafkaCluster, type KafkaTestCluster } from '../../helpers/kafka-cluster.js';
import { KafkaCaller } from '../../helpers/raw-kafka.js';

const { NONE, MISMATCHED_ENDPOINT_TYPE, UNSUPPORTED_ENDPOINT_TYPE } = ErrorCode;

interface DescribeClusterAnswer {
  errorCode: number;
  errorMessage: string | null;
  endpointType: number;
  clusterId: string;
  controllerId: number;
  brokers: { brokerId: number; host: string; port: number; rack: string | null; isFenced: boolean }[];
  clusterAuthorizedOperations: number;
}

const describeCluster = (k: KafkaCaller, version: number, includeClusterAuthorizedOperations = false, endpointType = 1, includeFencedBrokers = false): Promise<DescribeClusterAnswer> =>
  k.call(ApiKeys.DescribeCluster, version, { includeClusterAuthorizedOperations, endpointType, includeFencedBrokers });

describe('Kafka API: DescribeCluster', function () {
  this.timeout(60_000);
  let c: KafkaTestCluster;
  let k: KafkaCaller;

  before(async () => {
    // brokers in worker threads (one can be killed), fenced soon after they fall silent
    c = await startKafkaCluster({
      brokers: 3,
      kind: 'worker',
      racks: ['rack-a', null, 'rack-c'],
      brokerConfig: { 'broker.heartbeat.interval.ms': 200 },
      controllerConfig: { 'broker.session.timeout.ms': 1_500 },
    });
    k = await KafkaCaller.connect(c.bootstrap[0]!);
  });
  after(async () => {
    k?.end();
    await c?.stop();
  });

  it('ApiVersions advertises DescribeCluster v0-2', async () => {
    const r = await k.call(ApiKeys.ApiVersions, 3, { clientSoftwareName: 'test', clientSoftwareVersion: '1' });
    expect(r.apiKeys.find((a: { apiKey: number }) => a.apiKey === ApiKeys.DescribeCluster)).to.deep.include({ minVersion: 0, maxVersion: 2 });
  });

  it('answers the cluster id and every live broker with its Kafka listener and rack, as Metadata does (v0, v1 and v2)', async () => {
    const md = await k.call(ApiKeys.Metadata, 9, { topics: [], allowAutoTopicCreation: false });
    const fromMetadata = md.brokers.map((b: { nodeId: number; host: string; port: number; rack: string | null }) => ({ brokerId: b.nodeId, host: b.host, port: b.port, rack: b.rack }));
    const expected = [1, 2, 3].map((id) => {
      const [host, port] = [c.bootstrap[id - 1]!.slice(0, c.bootstrap[id - 1]!.lastIndexOf(':')), Number(c.bootstrap[id - 1]!.split(':').at(-1))];
      return { brokerId: id, host, port, rack: id === 1 ? 'rack-a' : id === 3 ? 'rack-c' : null };
    });
    expect(fromMetadata.sort((a: { brokerId: number }, b: { brokerId: number }) => a.brokerId - b.brokerId)).to.deep.equal(expected);
    for (const [v, includeFencedBrokers] of [[0, false], [1, false], [2, false], [2, true]] as const) {
      const r = await describeCluster(k, v, false, 1, includeFencedBrokers);
      expect(r.errorCode).to.equal(NONE);
      expect(r.errorMessage).to.equal(null);
      expect(r.clusterId).to.equal('kafka-test');
      // before v2 the brokers carry no fenced flag (decoded, it holds its default); at v2 none is fenced
      expect(r.brokers).to.deep.equal(expected.map((b) => ({ ...b, isFenced: false })));
      expect([1, 2, 3]).to.include(r.controllerId);
      expect(r.endpointType).to.equal(1);
      // not asked for: Kafka's "not requested"
      expect(r.clusterAuthorizedOperations).to.equal(OPERATIONS_NOT_REQUESTED);
    }
  });

  it('names a random live broker as controller, as a KRaft broker does', async () => {
    const seen = new Set<number>();
    for (let i = 0; i < 40; i++) seen.add((await describeCluster(k, 1)).controllerId);
    expect([...seen].sort()).to.deep.equal([1, 2, 3]);
  });

  it('without an authorizer, asked for them: every cluster operation', async () => {
    expect((await describeCluster(k, 1, true)).clusterAuthorizedOperations).to.equal(CLUSTER_OPERATIONS);
  });

  it('endpoint type 2 (controllers) is MISMATCHED_ENDPOINT_TYPE from a broker, an unknown type UNSUPPORTED_ENDPOINT_TYPE', async () => {
    const controllers = await describeCluster(k, 1, true, 2);
    expect(controllers).to.deep.include({
      errorCode: MISMATCHED_ENDPOINT_TYPE,
      errorMessage: 'The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type CONTROLLER',
      clusterId: '',
      controllerId: -1,
      brokers: [],
      clusterAuthorizedOperations: OPERATIONS_NOT_REQUESTED,
    });
    for (const type of [0, 3, -1]) {
      expect(await describeCluster(k, 1, false, type)).to.deep.include({ errorCode: UNSUPPORTED_ENDPOINT_TYPE, errorMessage: `Unsupported endpoint type ${type}`, brokers: [] });
    }
  });

  it('a broker whose session expired is no longer listed, nor named controller; v2 with IncludeFencedBrokers lists it fenced', async () => {
    const third = (await describeCluster(k, 2)).brokers.find((b) => b.brokerId === 3)!;
    await c.handle.killNode('b3');
    await checkFor(async () => (await describeCluster(k, 1)).brokers.length === 2, 20_000, 100);
    const r = await describeCluster(k, 1);
    expect(r.brokers.map((b) => b.brokerId)).to.deep.equal([1, 2]);
    for (let i = 0; i < 20; i++) expect([1, 2]).to.include((await describeCluster(k, 0)).controllerId);
    // v2 without IncludeFencedBrokers: the live ones, as before
    expect((await describeCluster(k, 2)).brokers.map((b) => [b.brokerId, b.isFenced])).to.deep.equal([[1, false], [2, false]]);
    // asked for them: the fenced broker too, still registered with its listener and rack
    const withFenced = await describeCluster(k, 2, false, 1, true);
    expect(withFenced.errorCode).to.equal(NONE);
    expect(withFenced.brokers.map((b) => [b.brokerId, b.isFenced])).to.deep.equal([[1, false], [2, false], [3, true]]);
    expect(withFenced.brokers[2]).to.deep.equal({ ...third, isFenced: true });
    // never named controller
    for (let i = 0; i < 20; i++) expect([1, 2]).to.include((await describeCluster(k, 2, false, 1, true)).controllerId);
    // before v2 the request cannot ask for them: the field is not sent
    expect((await describeCluster(k, 1, false, 1, true)).brokers.map((b) => b.brokerId)).to.deep.equal([1, 2]);
  });

  it('a fenced broker that comes back registers unfenced again', async () => {
    await c.handle.restartNode('b3');
    await checkFor(async () => (await describeCluster(k, 2)).brokers.length === 3, 20_000, 100);
    expect((await describeCluster(k, 2, false, 1, true)).brokers.map((b) => [b.brokerId, b.isFenced])).to.deep.equal([[1, false], [2, false], [3, false]]);
  });
});

describe('Kafka API: DescribeCluster with an authorizer', function () {
  this.timeout(30_000);
  let a: AuthorizedKafkaCluster;
  let root: KafkaCaller;
  let alice: KafkaCaller;

  /** Lets alice perform `operation` on the cluster; returns once the broker's listener has the ACL. */
  const allowAlice = (operation: number) => a.allow({ principal: 'User:alice', operation, resourceType: ResourceType.CLUSTER, resourceName: CLUSTER_NAME });

  before(async () => {
    a = await startAuthorizedKafkaCluster({ alice: 'alice-secret' }, { brokers: 1 });
    root = await a.login('admin');
    alice = await a.login('alice');
  });
  after(async () => {
    await a?.stop();
  });

  it("anyone may describe the cluster; the operations asked for are the client's own, none (0) without DESCRIBE on the cluster", async () => {
    const bare = await describeCluster(alice, 1, true);
    expect(bare).to.deep.include({ errorCode: NONE, clusterId: 'kafka-test', clusterAuthorizedOperations: 0 });
    expect(bare.brokers.map((b) => b.brokerId)).to.deep.equal([1]);
    expect((await describeCluster(alice, 1, false)).clusterAuthorizedOperations).to.equal(OPERATIONS_NOT_REQUESTED);
    // a super user may do everything
    expect((await describeCluster(root, 0, true)).clusterAuthorizedOperations).to.equal(CLUSTER_OPERATIONS);

    await allowAlice(AclOperation.DESCRIBE);
    expect((await describeCluster(alice, 1, true)).clusterAuthorizedOperations).to.equal(1 << AclOperation.DESCRIBE);
  });

  it('operations on the cluster without DESCRIBE on it are not told (0); ALTER implies DESCRIBE, as in Kafka', async () => {
    await a.revokeAll();
    await checkFor(async () => (await describeCluster(alice, 1, true)).clusterAuthorizedOperations === 0, 10_000, 10);
    await allowAlice(AclOperation.IDEMPOTENT_WRITE);
    expect((await describeCluster(alice, 1, true)).clusterAuthorizedOperations).to.equal(0);
    await allowAlice(AclOperation.ALTER);
    expect((await describeCluster(alice, 1, true)).clusterAuthorizedOperations).to.equal((1 << AclOperation.DESCRIBE) | (1 << AclOperation.ALTER) | (1 << AclOperation.IDEMPOTENT_WRITE));
  });
});
