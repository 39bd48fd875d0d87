/**
 * WriteTxnMarkers (27, v0-2) from a client, as the Java admin's abortTransaction sends it
 * (`kafka-transactions.sh abort`): the handler against a stand-in broker actor (the markers it
 * forwards, answers in request order, an actor failure as every partition's error code, the
 * authorization it asks for); then over the Kafka protocol on a two-broker cluster, a hanging
 * transaction no coordinator knows of aborted (or committed) by the partition's leader, the last
 * stable offset moving past it, stale markers refused with the replica's code, the codes of
 * partitions not led there and of unknown topics; and with an authorizer, CLUSTER_ACTION on the
 * cluster needed (else CLUSTER_AUTHORIZATION_FAILED on every partition, nothing written); v2's
 * transaction version 2 (KIP-1228): a marker at the epoch of the open transaction's data refused
 * as late, one above it written, and sent again answered without a second marker.
 */
import { expect } from 'chai';
import type { BrokerMsg, WriteTxnMarkersResponse } from '../../../actors/broker/messages.js';
import type { ApiContext } from '../../../src/kafka/api/context.js';
import { writeTxnMarkers } from '../../../src/kafka/api/write-txn-markers.js';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { decodeRecordBatches, encodeRecordBatch } from '../../../src/protocol/record-batch.js';
import { makeFailure } from '../../../src/runtime/pending-asks.js';
import type { Failure } from '../../../src/runtime/types.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../../src/security/acl.js';
import { startAuthorizedKafkaCluster, type AuthorizedKafkaCluster } from '../../helpers/authorized-kafka.js';
import { checkFor } from '../../helpers/check-for.js';
import { startKafkaCluster, type KafkaTestCluster } from '../../helpers/kafka-cluster.js';
import { KafkaCaller, consumerFetchBody } from '../../helpers/raw-kafka.js';

const { NONE, CLUSTER_AUTHORIZATION_FAILED, NOT_LEADER_OR_FOLLOWER, UNKNOWN_TOPIC_OR_PARTITION, INVALID_PRODUCER_EPOCH, TRANSACTION_COORDINATOR_FENCED } = ErrorCode;

interface MarkerBody {
  producerId: number;
  producerEpoch: number;
  transactionResult: boolean;
  coordinatorEpoch: number;
  topics: { name: string; partitionIndexes: number[] }[];
  transactionVersion: number;
}

/** topic/partition -> error code, of every marker of a WriteTxnMarkers response (in response order). */
const codesOf = (r: { markers: { producerId: number; topics: { name: string; partitions: { partitionIndex: number; errorCode: number }[] }[] }[] }) =>
  r.markers.flatMap((m) => m.topics.flatMap((t) => t.partitions.map((p) => [m.producerId, `${t.name}/${p.partitionIndex}`, p.errorCode])));

describe('Kafka API: WriteTxnMarkers handler (a stand-in broker)', () => {
  const broker = { node: 'main', path: '/broker-1' } as ApiContext['broker'];

  /** A context whose broker answers `reply`; records what it was asked. `allowed` answers the authorizer per operation. */
  function context(reply: WriteTxnMarkersResponse | Failure, allowed: (op: number) => boolean = () => true): { ctx: ApiContext; asked: { msg: BrokerMsg; timeoutMs: number }[]; authorized: number[] } {
    const asked: { msg: BrokerMsg; timeoutMs: number }[] = [];
    const authorized: number[] = [];
    const ctx = {
      broker,
      config: { requestTimeoutMs: 30_000 },
      authorize: (op: number, resourceType: number, name: string) => {
        expect([resourceType, name]).to.deep.equal([ResourceType.CLUSTER, CLUSTER_NAME]);
        authorized.push(op);
        return allowed(op);
      },
      ask: async (to: unknown, msg: BrokerMsg, timeoutMs: number) => {
        expect(to).to.equal(broker);
        asked.push({ msg, timeoutMs });
        return reply;
      },
    } as unknown as ApiContext;
    return { ctx, asked, authorized };
  }

  const markers: MarkerBody[] = [
    { producerId: 7, producerEpoch: 3, transactionResult: false, coordinatorEpoch: 0, topics: [{ name: 'b', partitionIndexes: [2, 0] }, { name: 'a', partitionIndexes: [1] }], transactionVersion: 0 },
    { producerId: 8, producerEpoch: 0, transactionResult: true, coordinatorEpoch: 4, topics: [{ name: 'a', partitionIndexes: [0] }], transactionVersion: 2 },
  ];
  const allPartitions = [
    [7, 'b/2'],
    [7, 'b/0'],
    [7, 'a/1'],
    [8, 'a/0'],
  ];

  it("forwards every marker to its broker's WriteTxnMarkers and answers each partition with the broker's code, in request order", async () => {
    const { ctx, asked } = context({
      type: 'WriteTxnMarkersResponse',
      markers: [
        {
          producerId: 7,
          topics: [
            { name: 'b', partitions: [{ partition: 2, errorCode: NONE, errorMessage: null }, { partition: 0, errorCode: NOT_LEADER_OR_FOLLOWER, errorMessage: 'not the leader' }] },
            { name: 'a', partitions: [{ partition: 1, errorCode: INVALID_PRODUCER_EPOCH, errorMessage: 'stale' }] },
          ],
        },
        { producerId: 8, topics: [{ name: 'a', partitions: [{ partition: 0, errorCode: UNKNOWN_TOPIC_OR_PARTITION, errorMessage: 'unknown' }] }] },
      ],
    });
    const r = await writeTxnMarkers(ctx, 1, { markers });
    expect(asked).to.deep.equal([
      {
        msg: {
          type: 'WriteTxnMarkers',
          timeoutMs: 30_000,
          markers: [
            { producerId: 7, producerEpoch: 3, coordinatorEpoch: 0, commit: false, topics: [{ name: 'b', partitions: [2, 0] }, { name: 'a', partitions: [1] }], transactionVersion: 0 },
            { producerId: 8, producerEpoch: 0, coordinatorEpoch: 4, commit: true, topics: [{ name: 'a', partitions: [0] }], transactionVersion: 2 },
          ],
        },
        timeoutMs: 40_000,
      },
    ]);
    expect(r).to.deep.equal({
      markers: [
        {
          producerId: 7,
          topics: [
            { name: 'b', partitions: [{ partitionIndex: 2, errorCode: NONE }, { partitionIndex: 0, errorCode: NOT_LEADER_OR_FOLLOWER }] },
            { name: 'a', partitions: [{ partitionIndex: 1, errorCode: INVALID_PRODUCER_EPOCH }] },
          ],
        },
        { producerId: 8, topics: [{ name: 'a', partitions: [{ partitionIndex: 0, errorCode: UNKNOWN_TOPIC_OR_PARTITION }] }] },
      ],
    });
  });

  for (const [reason, code] of [
    ['timeout', ErrorCode.REQUEST_TIMED_OUT],
    ['unknown-actor', ErrorCode.UNKNOWN_SERVER_ERROR],
  ] as const) {
    it(`a broker that does not answer (${reason}) gives its failure's code on every partition, nothing thrown`, async () => {
      const { ctx } = context(makeFailure(reason, 'no answer'));
      const r = await writeTxnMarkers(ctx, 0, { markers });
      expect(codesOf(r as never)).to.deep.equal(allPartitions.map(([pid, tp]) => [pid, tp, code]));
    });
  }

  it('without ALTER or CLUSTER_ACTION on the cluster: CLUSTER_AUTHORIZATION_FAILED on every partition, the broker not asked', async () => {
    const { ctx, asked, authorized } = context({ type: 'WriteTxnMarkersResponse', markers: [] }, () => false);
    const r = await writeTxnMarkers(ctx, 1, { markers });
    expect(asked).to.deep.equal([]);
    expect(authorized).to.deep.equal([AclOperation.ALTER, AclOperation.CLUSTER_ACTION]);
    expect(codesOf(r as never)).to.deep.equal(allPartitions.map(([pid, tp]) => [pid, tp, CLUSTER_AUTHORIZATION_FAILED]));
  });

  it('either ALTER (an admin, as Kafka asks first) or CLUSTER_ACTION (a broker) on the cluster is enough', async () => {
    for (const op of [AclOperation.ALTER, AclOperation.CLUSTER_ACTION]) {
      const { ctx, asked } = context({ type: 'WriteTxnMarkersResponse', markers: [{ producerId: 8, topics: [{ name: 'a', partitions: [{ partition: 0, errorCode: NONE, errorMessage: null }] }] }] }, (o) => o === op);
      const r = await writeTxnMarkers(ctx, 1, { markers: [markers[1]!] });
      expect(asked).to.have.length(1);
      expect(codesOf(r as never)).to.deep.equal([[8, 'a/0', NONE]]);
    }
  });

  it('no markers: an empty answer without asking the broker', async () => {
    const { ctx, asked } = context({ type: 'WriteTxnMarkersResponse', markers: [] });
    expect(await writeTxnMarkers(ctx, 1, { markers: [] })).to.deep.equal({ markers: [] });
    expect(asked).to.deep.equal([]);
  });
});

const TOPIC = 'hanging';
/** Hanging transactions are made as a broker without KIP-890's verification lets them be (older brokers, or verification off). */
const UNVERIFIED = { 'transaction.partition.verification.enable': false };

/** A transactional batch of `values` by a producer no coordinator knows (the hanging transaction an admin aborts). */
const txnBatch = (producerId: number, producerEpoch: number, baseSequence: number, values: string[]) =>
  encodeRecordBatch({ transactional: true, producerId, producerEpoch, baseSequence, records: values.map((v) => ({ value: Buffer.from(v), timestamp: Date.now() })) });

const produceTxn = async (k: KafkaCaller, topic: string, partition: number, records: Buffer): Promise<number> => {
  const r = await k.call(ApiKeys.Produce, 9, { transactionalId: 'hanging-txn', acks: -1, timeoutMs: 5_000, topicData: [{ name: topic, partitionData: [{ index: partition, records }] }] });
  expect(r.responses[0].partitionResponses[0].errorCode).to.equal(NONE);
  return r.responses[0].partitionResponses[0].baseOffset;
};

const marker = (producerId: number, producerEpoch: number, commit: boolean, topics: { name: string; partitionIndexes: number[] }[], coordinatorEpoch = 0, transactionVersion = 0): MarkerBody => ({
  producerId,
  producerEpoch,
  transactionResult: commit,
  coordinatorEpoch,
  topics,
  transactionVersion,
});

/** The log end offset (isolation 0) or last stable offset (1) of a partition, from its leader. */
const latest = async (k: KafkaCaller, topic: string, partition: number, isolationLevel: 0 | 1): Promise<number> => {
  const r = await k.call(ApiKeys.ListOffsets, 6, { replicaId: -1, isolationLevel, topics: [{ name: topic, partitions: [{ partitionIndex: partition, currentLeaderEpoch: -1, timestamp: -1 }] }] });
  expect(r.topics[0].partitions[0].errorCode).to.equal(NONE);
  return r.topics[0].partitions[0].offset;
};

/** The open transaction's first offset of `producerId` on a partition (-1 when none), from DescribeProducers. */
const openTxnStart = async (k: KafkaCaller, topic: string, partition: number, producerId: number): Promise<number | undefined> => {
  const r = await k.call(ApiKeys.DescribeProducers, 0, { topics: [{ name: topic, partitionIndexes: [partition] }] });
  expect(r.topics[0].partitions[0].errorCode).to.equal(NONE);
  return r.topics[0].partitions[0].activeProducers.find((p: { producerId: number }) => p.producerId === producerId)?.currentTxnStartOffset;
};

describe('Kafka API: WriteTxnMarkers over the Kafka protocol', function () {
  this.timeout(30_000);
  let c: KafkaTestCluster;
  /** callers by broker id */
  const callers = new Map<number, KafkaCaller>();
  /** partition -> leader broker id */
  const leaders = new Map<number, number>();
  const leaderOf = (p: number) => callers.get(leaders.get(p)!)!;
  const followerOf = (p: number) => callers.get(leaders.get(p) === 1 ? 2 : 1)!;

  before(async () => {
    c = await startKafkaCluster({ brokers: 2, brokerConfig: UNVERIFIED, topics: [{ name: TOPIC, partitions: 2, replicationFactor: 2 }] });
    for (const [i, endpoint] of c.bootstrap.entries()) callers.set(i + 1, await KafkaCaller.connect(endpoint));
    await checkFor(async () => {
      const md = await callers.get(1)!.call(ApiKeys.Metadata, 9, { topics: [{ name: TOPIC }], allowAutoTopicCreation: false });
      for (const p of md.topics[0].partitions) leaders.set(p.partitionIndex, p.leaderId);
      return md.topics[0].partitions.length === 2 && [...leaders.values()].every((l) => l === 1 || l === 2);
    }, 10_000, 20);
  });
  after(async () => {
    for (const k of callers.values()) k.end();
    await c?.stop();
  });

  it('ApiVersions advertises WriteTxnMarkers v0-2', async () => {
    const r = await callers.get(1)!.call(ApiKeys.ApiVersions, 3, { clientSoftwareName: 'test', clientSoftwareVersion: '1' });
    expect(r.apiKeys.find((a: { apiKey: number }) => a.apiKey === ApiKeys.WriteTxnMarkers)).to.deep.include({ minVersion: 0, maxVersion: 2 });
  });

  it("ABORT ends a hanging transaction no coordinator knows: the last stable offset moves past it, read_committed lists it aborted, DescribeProducers shows it closed; a stale epoch's marker is refused", async () => {
    const leader = leaderOf(0);
    const producerId = 900_001;
    const producerEpoch = 5;
    const base = await produceTxn(leader, TOPIC, 0, txnBatch(producerId, producerEpoch, 0, ['h0', 'h1']));
    const fetchCommitted = async () => (await leader.call(ApiKeys.Fetch, 12, consumerFetchBody(TOPIC, 0, 0, { isolationLevel: 1 }))).responses[0].partitions[0];
    // hanging: read_committed stops before it
    expect(await latest(leader, TOPIC, 0, 1)).to.equal(base);
    expect((await fetchCommitted()).lastStableOffset).to.equal(base);
    expect(await openTxnStart(leader, TOPIC, 0, producerId)).to.equal(base);

    const r = await leader.call(ApiKeys.WriteTxnMarkers, 1, { markers: [marker(producerId, producerEpoch, false, [{ name: TOPIC, partitionIndexes: [0] }])] });
    expect(r).to.deep.equal({ markers: [{ producerId, topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, errorCode: NONE }] }] }] });
    // two records and the ABORT marker; answered once the ISR has it
    expect(await latest(leader, TOPIC, 0, 0)).to.equal(base + 3);
    expect(await latest(leader, TOPIC, 0, 1)).to.equal(base + 3);
    const p = await fetchCommitted();
    expect(p.lastStableOffset).to.equal(base + 3);
    expect(p.abortedTransactions).to.deep.equal([{ producerId, firstOffset: base }]);
    const control = decodeRecordBatches(p.records).find((b) => b.control);
    expect(control).to.deep.include({ baseOffset: base + 2, producerId, producerEpoch, transactional: true });
    expect(await openTxnStart(leader, TOPIC, 0, producerId)).to.equal(-1);

    // a marker of an older epoch than the producer's is refused by the replica, nothing written
    const stale = await leader.call(ApiKeys.WriteTxnMarkers, 1, { markers: [marker(producerId, producerEpoch - 1, false, [{ name: TOPIC, partitionIndexes: [0] }])] });
    expect(codesOf(stale)).to.deep.equal([[producerId, `${TOPIC}/0`, INVALID_PRODUCER_EPOCH]]);
    expect(await latest(leader, TOPIC, 0, 0)).to.equal(base + 3);
  });

  it('COMMIT (v0) makes a hanging transaction visible to read_committed; a marker from an older coordinator epoch is then fenced', async () => {
    const leader = leaderOf(1);
    const producerId = 900_002;
    const base = await produceTxn(leader, TOPIC, 1, txnBatch(producerId, 0, 0, ['kept']));
    expect(await latest(leader, TOPIC, 1, 1)).to.equal(base);

    const r = await leader.call(ApiKeys.WriteTxnMarkers, 0, { markers: [marker(producerId, 0, true, [{ name: TOPIC, partitionIndexes: [1] }], 3)] });
    expect(codesOf(r)).to.deep.equal([[producerId, `${TOPIC}/1`, NONE]]);
    const p = (await leader.call(ApiKeys.Fetch, 12, consumerFetchBody(TOPIC, 1, 0, { isolationLevel: 1 }))).responses[0].partitions[0];
    expect(p.lastStableOffset).to.equal(base + 2);
    expect(p.abortedTransactions ?? []).to.deep.equal([]);
    const batches = decodeRecordBatches(p.records);
    expect(batches.filter((b) => !b.control).flatMap((b) => b.records.map((x) => x.value?.toString()))).to.deep.equal(['kept']);
    expect(await openTxnStart(leader, TOPIC, 1, producerId)).to.equal(-1);

    const fenced = await leader.call(ApiKeys.WriteTxnMarkers, 1, { markers: [marker(producerId, 0, false, [{ name: TOPIC, partitionIndexes: [1] }], 2)] });
    expect(codesOf(fenced)).to.deep.equal([[producerId, `${TOPIC}/1`, TRANSACTION_COORDINATOR_FENCED]]);
    expect(await latest(leader, TOPIC, 1, 0)).to.equal(base + 2);
  });

  it("v2 at transaction version 2: a marker at the open transaction's epoch is late and refused, one above it ends it, sent again it is answered and not written twice", async () => {
    const leader = leaderOf(1);
    const producerId = 900_003;
    const at = (epoch: number, commit: boolean, tv = 2) => marker(producerId, epoch, commit, [{ name: TOPIC, partitionIndexes: [1] }], 0, tv);
    const base = await produceTxn(leader, TOPIC, 1, txnBatch(producerId, 4, 0, ['first']));
    // a marker of the transaction before, at the epoch this one's data has: would end this one
    const late = await leader.call(ApiKeys.WriteTxnMarkers, 2, { markers: [at(4, false)] });
    expect(codesOf(late)).to.deep.equal([[producerId, `${TOPIC}/1`, INVALID_PRODUCER_EPOCH]]);
    expect(await latest(leader, TOPIC, 1, 0)).to.equal(base + 1);
    expect(await openTxnStart(leader, TOPIC, 1, producerId)).to.equal(base);
    // the coordinator bumped the epoch to end it
    expect(codesOf(await leader.call(ApiKeys.WriteTxnMarkers, 2, { markers: [at(5, true)] }))).to.deep.equal([[producerId, `${TOPIC}/1`, NONE]]);
    expect(await latest(leader, TOPIC, 1, 0)).to.equal(base + 2);
    expect(await latest(leader, TOPIC, 1, 1)).to.equal(base + 2);
    // its retry (an answer lost): answered, nothing more written
    expect(codesOf(await leader.call(ApiKeys.WriteTxnMarkers, 2, { markers: [at(5, true)] }))).to.deep.equal([[producerId, `${TOPIC}/1`, NONE]]);
    expect(await latest(leader, TOPIC, 1, 0)).to.equal(base + 2);
    // the next transaction goes on at epoch 5: that marker, late now, is refused; as v1 (transaction version 0) it would end it
    await produceTxn(leader, TOPIC, 1, txnBatch(producerId, 5, 0, ['second']));
    expect(codesOf(await leader.call(ApiKeys.WriteTxnMarkers, 2, { markers: [at(5, true)] }))).to.deep.equal([[producerId, `${TOPIC}/1`, INVALID_PRODUCER_EPOCH]]);
    expect(await openTxnStart(leader, TOPIC, 1, producerId)).to.equal(base + 2);
    expect(codesOf(await leader.call(ApiKeys.WriteTxnMarkers, 1, { markers: [at(5, false, 0)] }))).to.deep.equal([[producerId, `${TOPIC}/1`, NONE]]);
    expect(await openTxnStart(leader, TOPIC, 1, producerId)).to.equal(-1);
    expect(await latest(leader, TOPIC, 1, 1)).to.equal(base + 4);
  });

  it('a partition the broker asked does not lead answers NOT_LEADER_OR_FOLLOWER, an unknown topic UNKNOWN_TOPIC_OR_PARTITION, in request order; neither is written', async () => {
    const producerId = 900_003;
    const base = await produceTxn(leaderOf(0), TOPIC, 0, txnBatch(producerId, 0, 0, ['elsewhere']));
    const r = await followerOf(0).call(ApiKeys.WriteTxnMarkers, 1, {
      markers: [
        marker(producerId, 0, false, [
          { name: 'no-such-topic', partitionIndexes: [0] },
          { name: TOPIC, partitionIndexes: [0] },
        ]),
        marker(producerId + 1, 0, true, [{ name: 'no-such-topic', partitionIndexes: [3, 1] }]),
      ],
    });
    expect(codesOf(r)).to.deep.equal([
      [producerId, 'no-such-topic/0', UNKNOWN_TOPIC_OR_PARTITION],
      [producerId, `${TOPIC}/0`, NOT_LEADER_OR_FOLLOWER],
      [producerId + 1, 'no-such-topic/3', UNKNOWN_TOPIC_OR_PARTITION],
      [producerId + 1, 'no-such-topic/1', UNKNOWN_TOPIC_OR_PARTITION],
    ]);
    expect(await latest(leaderOf(0), TOPIC, 0, 0)).to.equal(base + 1);
    expect(await openTxnStart(leaderOf(0), TOPIC, 0, producerId)).to.equal(base);
    // the leader ends it
    const ended = await leaderOf(0).call(ApiKeys.WriteTxnMarkers, 1, { markers: [marker(producerId, 0, false, [{ name: TOPIC, partitionIndexes: [0] }])] });
    expect(codesOf(ended)).to.deep.equal([[producerId, `${TOPIC}/0`, NONE]]);
  });
});

describe('Kafka API: WriteTxnMarkers with an authorizer', function () {
  this.timeout(30_000);
  let a: AuthorizedKafkaCluster;
  let root: KafkaCaller;
  let alice: KafkaCaller;
  let bob: KafkaCaller;

  before(async () => {
    a = await startAuthorizedKafkaCluster({ alice: 'alice-secret', bob: 'bob-secret' }, { brokers: 1, brokerConfig: UNVERIFIED, topics: [{ name: TOPIC, partitions: 2, replicationFactor: 1 }] });
    root = await a.login('admin');
    alice = await a.login('alice');
    bob = await a.login('bob');
  });
  after(async () => {
    await a?.stop();
  });

  it('without CLUSTER_ACTION: CLUSTER_AUTHORIZATION_FAILED on every partition and nothing written; with it (or as a super user) the transactions end', async () => {
    const [p0, p1] = [900_011, 900_012];
    const base0 = await produceTxn(root, TOPIC, 0, txnBatch(p0, 0, 0, ['a']));
    const base1 = await produceTxn(root, TOPIC, 1, txnBatch(p1, 0, 0, ['b']));
    const request = {
      markers: [
        marker(p0, 0, false, [
          { name: TOPIC, partitionIndexes: [0] },
          { name: 'no-such-topic', partitionIndexes: [2] },
        ]),
        marker(p1, 0, false, [{ name: TOPIC, partitionIndexes: [1] }]),
      ],
    };
    const denied = await alice.call(ApiKeys.WriteTxnMarkers, 1, request);
    expect(codesOf(denied)).to.deep.equal([
      [p0, `${TOPIC}/0`, CLUSTER_AUTHORIZATION_FAILED],
      [p0, 'no-such-topic/2', CLUSTER_AUTHORIZATION_FAILED],
      [p1, `${TOPIC}/1`, CLUSTER_AUTHORIZATION_FAILED],
    ]);
    expect(codesOf(await bob.call(ApiKeys.WriteTxnMarkers, 0, request)).every(([, , code]) => code === CLUSTER_AUTHORIZATION_FAILED)).to.equal(true);
    expect([await latest(root, TOPIC, 0, 0), await latest(root, TOPIC, 1, 0)]).to.deep.equal([base0 + 1, base1 + 1]);
    expect([await openTxnStart(root, TOPIC, 0, p0), await openTxnStart(root, TOPIC, 1, p1)]).to.deep.equal([base0, base1]);

    // bob may CLUSTER_ACTION: his marker for partition 0 goes through
    await a.allow({ principal: 'User:bob', operation: AclOperation.CLUSTER_ACTION, resourceType: ResourceType.CLUSTER, resourceName: CLUSTER_NAME });
    const byBob = await bob.call(ApiKeys.WriteTxnMarkers, 1, { markers: [request.markers[0]!] });
    expect(codesOf(byBob)).to.deep.equal([
      [p0, `${TOPIC}/0`, NONE],
      [p0, 'no-such-topic/2', UNKNOWN_TOPIC_OR_PARTITION],
    ]);
    expect(await latest(root, TOPIC, 0, 1)).to.equal(base0 + 2);
    // alice still may not
    expect(codesOf(await alice.call(ApiKeys.WriteTxnMarkers, 1, { markers: [request.markers[1]!] }))).to.deep.equal([[p1, `${TOPIC}/1`, CLUSTER_AUTHORIZATION_FAILED]]);
    // the super user needs no ACL
    expect(codesOf(await root.call(ApiKeys.WriteTxnMarkers, 1, { markers: [request.markers[1]!] }))).to.deep.equal([[p1, `${TOPIC}/1`, NONE]]);
    expect(await latest(root, TOPIC, 1, 1)).to.equal(base1 + 2);
    expect(await openTxnStart(root, TOPIC, 1, p1)).to.equal(-1);
  });
});
