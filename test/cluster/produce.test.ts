/**
 * Broker produce requests on a real in-process cluster: a partition's batches as one buffer or
 * as a list of batch buffers (samsa's producer sends several batches of a partition that way),
 * and entries the broker refuses, each answered as data for its own partition.
 */
import { expect } from 'chai';
import type { BrokerMsg, BrokerProduceResponse, FetchResponse, ProducePartition } from '../../actors/broker/messages.js';
import { brokerPath, replicaPath } from '../../src/protocol/cluster.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { decodeRecordBatches } from '../../src/protocol/record-batch.js';
import type { ActorRef, Failure } from '../../src/runtime/types.js';
import { ClusterClient } from '../helpers/cluster-client.js';
import { checkFor } from '../helpers/check-for.js';
import { TestCluster } from '../helpers/cluster.js';

describe('cluster (in-process): produce', function () {
  this.timeout(30_000);
  let c: TestCluster;
  let leaderRef: ActorRef<BrokerMsg>;

  before(async () => {
    c = await TestCluster.start({ brokers: 1, brokerConfig: { 'broker.heartbeat.interval.ms': 200 } });
    await c.client.createTopic('pl', 2, 1);
    const md = await c.client.metadata();
    leaderRef = { node: c.client.nodeOf(md, 1), path: brokerPath(1) };
  });
  after(async () => {
    await c?.stop();
  });

  const produce = (partitions: ProducePartition[]) =>
    c.system().ask<BrokerProduceResponse>(leaderRef, { type: 'Produce', acks: 1, timeoutMs: 5_000, partitions }, { timeoutMs: 10_000 }) as Promise<BrokerProduceResponse | Failure>;
  const readAll = async (partition: number): Promise<string[]> => {
    const r = (await c.system().ask<FetchResponse>(
      leaderRef,
      { type: 'Fetch', replicaId: -1, minBytes: 1, maxWaitMs: 0, maxBytes: 1 << 20, partitions: [{ topic: 'pl', partition, fetchOffset: 0, currentLeaderEpoch: -1, partitionMaxBytes: 1 << 20 }] },
      { timeoutMs: 10_000 },
    )) as FetchResponse;
    return decodeRecordBatches(r.partitions[0]!.records).flatMap((b) => b.records.map((x) => `${x.offset}:${String(x.value)}`));
  };

  it('appends a list of batches back to back, in order, with offsets from the first', async () => {
    const r = (await produce([
      { topic: 'pl', partition: 0, records: [ClusterClient.batch(['a', 'b']), ClusterClient.batch(['c']), ClusterClient.batch(['d', 'e', 'f'])] },
      { topic: 'pl', partition: 1, records: ClusterClient.batch(['x']) },
    ])) as BrokerProduceResponse;
    expect(r.partitions.map((p) => [p.partition, p.errorCode, p.baseOffset])).to.deep.equal([
      [0, ErrorCode.NONE, 0],
      [1, ErrorCode.NONE, 0],
    ]);
    expect(await readAll(0)).to.deep.equal(['0:a', '1:b', '2:c', '3:d', '4:e', '5:f']);
    expect(await readAll(1)).to.deep.equal(['0:x']);
  });

  it('refuses an entry whose list holds something other than bytes, for that partition only, and writes nothing of it', async () => {
    const r = (await produce([
      { topic: 'pl', partition: 0, records: [ClusterClient.batch(['bad']), 'not bytes'] as unknown as Uint8Array[] },
      { topic: 'pl', partition: 1, records: [ClusterClient.batch(['y'])] },
    ])) as BrokerProduceResponse;
    expect(r.errorCode).to.equal(ErrorCode.NONE);
    expect(r.partitions[0]!.errorCode).to.not.equal(ErrorCode.NONE);
    expect(r.partitions[0]!.errorMessage).to.match(/records/);
    expect(r.partitions[1]).to.deep.include({ errorCode: ErrorCode.NONE, baseOffset: 1 });
    expect(await readAll(0)).to.deep.equal(['0:a', '1:b', '2:c', '3:d', '4:e', '5:f']);
  });

  describe("the request's payload hold (a worker port's buffer goes back once released)", () => {
    /** Gives the next Produce that reaches the broker's node a hold, and counts its releases. */
    function holdNextProduce(): { released: () => number; restore: () => void } {
      const sys = c.brokerSystem(1);
      const receive = sys.receive.bind(sys);
      let releases = 0;
      sys.receive = (env, via) => {
        if (env.msg.type === 'Produce') {
          env.payloadHold = { release: () => void releases++ };
          sys.receive = receive;
        }
        receive(env, via);
      };
      return { released: () => releases, restore: () => void (sys.receive = receive) };
    }

    it('is released once every replica has answered, after the response', async () => {
      const h = holdNextProduce();
      const r = (await produce([
        { topic: 'pl', partition: 0, records: ClusterClient.batch(['h1']) },
        { topic: 'pl', partition: 1, records: [ClusterClient.batch(['h2']), ClusterClient.batch(['h3'])] },
      ])) as BrokerProduceResponse;
      expect(r.partitions.map((p) => p.errorCode)).to.deep.equal([ErrorCode.NONE, ErrorCode.NONE]);
      expect(h.released()).to.equal(1);
    });

    it('is released when the broker refuses an entry itself (no replica of it here)', async () => {
      const h = holdNextProduce();
      const r = (await produce([{ topic: 'no-such-topic', partition: 0, records: ClusterClient.batch(['x']) }])) as BrokerProduceResponse;
      expect(r.partitions[0]!.errorCode).to.equal(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
      expect(h.released()).to.equal(1);
    });

    it('is never released with acks 0: nothing says when the replicas are done', async () => {
      const before = (await readAll(0)).length;
      const h = holdNextProduce();
      c.system().send(leaderRef, { type: 'Produce', acks: 0, timeoutMs: 5_000, partitions: [{ topic: 'pl', partition: 0, records: ClusterClient.batch(['z']) }] });
      await checkFor(async () => (await readAll(0)).length === before + 1);
      await new Promise((r) => setTimeout(r, 50));
      expect(h.released()).to.equal(0);
      h.restore();
    });

    it('is never released when a replica did not answer in time: it may still hold the bytes', async function () {
      this.timeout(20_000);
      const sys = c.brokerSystem(1);
      const route = sys.route.bind(sys);
      // the replica of partition 0 takes in nothing: the broker's ask to it times out
      sys.route = (env) => {
        if (env.msg.type === 'Produce' && env.to.path === replicaPath(1, 'pl', 0)) return;
        route(env);
      };
      const h = holdNextProduce();
      try {
        const r = (await c.system().ask<BrokerProduceResponse>(
          leaderRef,
          { type: 'Produce', acks: 1, timeoutMs: 1, partitions: [{ topic: 'pl', partition: 0, records: ClusterClient.batch(['t']) }, { topic: 'pl', partition: 1, records: ClusterClient.batch(['u']) }] },
          { timeoutMs: 15_000 },
        )) as BrokerProduceResponse;
        expect(r.partitions.map((p) => p.errorCode)).to.deep.equal([ErrorCode.REQUEST_TIMED_OUT, ErrorCode.NONE]);
        expect(h.released()).to.equal(0);
      } finally {
        sys.route = route;
      }
    });
  });
});
