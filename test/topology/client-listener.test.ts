/**
 * A topology's client listener lets clients in, not the controller's authority: through it a
 * client may use the client APIs (samsa's own client works), but the controller's requests to
 * brokers, a follower's fetch, Raft and a broker's registration are refused as unauthorized
 * however well formed, and the brokers go on following the real controller.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { SamsaClient } from '../../src/client/samsa.js';
import { brokerPath, CONTROLLER_PATH } from '../../src/protocol/cluster.js';
import { ActorSystem } from '../../src/runtime/actor-system.js';
import { isFailure, type Failure, type Message } from '../../src/runtime/types.js';
import { startCluster, type ClusterHandle } from '../../src/topology/start-cluster.js';
import { TcpTransport } from '../../src/transport/tcp.js';
import { CONTROLLER_CHANNEL_PATH } from '../../actors/cluster-node/controller-channel.js';

const CLUSTER_ID = 'client-listener';

describe('topology: what a client listener lets clients do', function () {
  this.timeout(60_000);
  let dir: string;
  let handle: ClusterHandle;
  let client: SamsaClient;
  let raw: ActorSystem;

  const ask = (node: string, p: string, msg: Record<string, unknown>) => raw.ask({ node, path: p }, msg as unknown as Message, { timeoutMs: 5_000 });
  const expectUnauthorized = (r: Message, what: string) => {
    expect(isFailure(r), `${what}: ${JSON.stringify(r)}`).to.equal(true);
    expect((r as Failure).reason, what).to.equal('unauthorized');
  };

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-client-listener-'));
    handle = await startCluster(
      {
        clusterId: CLUSTER_ID,
        nodes: [{ id: 'main', kind: 'inproc' }, { id: 'b1', kind: 'inproc' }, { id: 'b2', kind: 'inproc' }],
        controller: { node: 'main', metadataDir: 'controller' },
        brokers: [1, 2].map((id) => ({ id, node: `b${id}`, logDir: `broker-${id}`, config: { 'offsets.topic.num.partitions': 1, 'offsets.topic.replication.factor': 2 } })),
        listeners: [{ node: 'main', host: '127.0.0.1', port: 0 }],
        topics: [{ name: 'before', partitions: 1, replicationFactor: 2 }],
      },
      { baseDir: dir },
    );
    const address = handle.addresses()[0]!;
    client = await SamsaClient.connect({ brokers: [address], clientId: 'trust', clusterId: CLUSTER_ID });
    raw = new ActorSystem({ nodeId: 'raw-client' });
    const [host, port] = address.split(':');
    await new TcpTransport(raw, { clusterId: CLUSTER_ID }).connect(Number(port), host);
    raw.setDefaultRoute('main');
  });

  after(async () => {
    await raw?.stop();
    await client?.close();
    await handle?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("refuses the controller's requests from a client, and the brokers keep following the controller", async () => {
    // a higher controller epoch would make a broker take the sender for a new controller
    expectUnauthorized(await ask('b1', brokerPath(1), { type: 'LeaderAndIsrRequest', controllerEpoch: 999, brokerId: 1, partitions: [], liveLeaders: [] }), 'LeaderAndIsrRequest');
    expectUnauthorized(await ask('b2', brokerPath(2), { type: 'UpdateMetadataRequest', controllerEpoch: 999, metadata: { brokers: [], topics: [] } }), 'UpdateMetadataRequest');
    expectUnauthorized(await ask('b1', brokerPath(1), { type: 'StopReplicaRequest', controllerEpoch: 999, brokerId: 1, partitions: [{ topic: 'before', partition: 0, deletePartition: true }] }), 'StopReplicaRequest');
    // so is the cluster's side of the controller: registrations, heartbeats, ISR changes, Raft
    expectUnauthorized(await ask('main', CONTROLLER_CHANNEL_PATH, { type: 'BrokerHeartbeat', brokerId: 1, brokerEpoch: 1, wantShutDown: true }), 'BrokerHeartbeat');
    expectUnauthorized(await ask('main', CONTROLLER_PATH, { type: 'CreateTopics', topics: [] }), 'the controller itself');
    expectUnauthorized(await ask('main', `${CONTROLLER_PATH}/quorum`, { type: 'VoteRequest', term: 999, candidateId: 7, lastLogIndex: 1e9, lastLogTerm: 999 }), 'VoteRequest');

    const admin = client.admin();
    await admin.connect();
    try {
      await admin.createTopics({ topics: [{ topic: 'after', numPartitions: 2, replicationFactor: 2 }], waitForLeaders: true });
      const producer = client.producer({ acks: 'all' });
      await producer.connect();
      await producer.send({ topic: 'after', messages: [{ partition: 0, value: 'a' }, { partition: 1, value: 'b' }] });
      await producer.send({ topic: 'before', messages: [{ value: 'still here' }] });
      await producer.disconnect();
      const offsets = await admin.fetchTopicOffsets('after');
      expect(offsets.map((o) => o.high).sort()).to.deep.equal([1, 1]);
      expect((await admin.fetchTopicOffsets('before'))[0]!.high).to.equal(1);
    } finally {
      await admin.disconnect();
    }
  });

  it("takes a consumer's fetch from a client and refuses a follower's", async () => {
    const partitions = [{ topic: 'before', partition: 0, fetchOffset: 0, currentLeaderEpoch: -1, partitionMaxBytes: 1 << 20 }];
    const follower = await ask('b1', brokerPath(1), { type: 'Fetch', replicaId: 2, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, partitions });
    expectUnauthorized(follower, 'a follower fetch');
    expect((follower as Failure).message).to.match(/replica id 2: a follower's fetch comes from a broker of the cluster/);
    const consumer = await ask('b1', brokerPath(1), { type: 'Fetch', replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, partitions });
    expect(isFailure(consumer), JSON.stringify(consumer)).to.equal(false);
  });

  it('takes no client that names itself after a node of the cluster', async () => {
    const impostor = new ActorSystem({ nodeId: 'b1' });
    try {
      const [host, port] = handle.addresses()[0]!.split(':');
      let refused = '';
      await new TcpTransport(impostor, { clusterId: CLUSTER_ID }).connect(Number(port), host).catch((err: Error) => (refused = err.message));
      expect(refused).to.match(/node id 'b1' is one of the cluster's nodes/);
    } finally {
      await impostor.stop();
    }
  });
});
