/**
 * Broker produce requests on a real in-process cluster: a partition's batches as one buffer or
 * as a list of batch buffers (samsa's producer sends several batches of a partition that way),
 * and entries the broker refuses, each answered as data for its own partition.
 */
import { expect } from 'chai';
import type { BrokerMsg, BrokerProduceResponse, FetchResponse, ProducePartition } from '../../actors/broker/messages.js';
import { brokerPath } from '../../src/protocol/cluster.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { decodeRecordBatches } from '../../src/protocol/record-batch.js';
import type { ActorRef, Failure } from '../../src/runtime/types.js';
import { ClusterClient } from '../helpers/cluster-client.js';
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
});
