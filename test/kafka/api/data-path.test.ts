/**
 * Produce, Fetch, ListOffsets, OffsetForLeaderEpoch and DeleteRecords over the Kafka protocol, spoken byte for
 * byte by our codec against a two-broker cluster: batches are stored and served as the bytes the
 * client sent (only the base offset and leader epoch the leader assigns differ), errors come back
 * per partition, long-poll fetches wake on new data, and a broker that does not lead a partition
 * says so.
 */
import { expect } from 'chai';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { decodeRecordBatches, encodeRecordBatch } from '../../../src/protocol/record-batch.js';
import { startKafkaCluster, type KafkaTestCluster } from '../../helpers/kafka-cluster.js';
import { KafkaCaller, consumerFetchBody } from '../../helpers/raw-kafka.js';
import { checkFor } from '../../helpers/check-for.js';
import { brokerPath } from '../../../src/protocol/cluster.js';
import type { BrokerDescription } from '../../../actors/broker/messages.js';

const TOPIC = 'data';

function batch(values: string[], timestamp = Date.now()): Buffer {
  return encodeRecordBatch({ records: values.map((v, i) => ({ key: Buffer.from(`k${i}`), value: Buffer.from(v), headers: [{ key: 'h', value: Buffer.from('1') }], timestamp: timestamp + i })) });
}

describe('Kafka API: the data path (Produce, Fetch, ListOffsets, OffsetForLeaderEpoch)', function () {
  this.timeout(30_000);
  let c: KafkaTestCluster;
  /** callers by broker id */
  const callers = new Map<number, KafkaCaller>();
  /** partition -> leader broker id */
  const leaders = new Map<number, number>();

  const leaderOf = (p: number) => callers.get(leaders.get(p)!)!;
  const followerOf = (p: number) => callers.get(leaders.get(p) === 1 ? 2 : 1)!;

  before(async () => {
    c = await startKafkaCluster({ brokers: 2, topics: [{ name: TOPIC, partitions: 2, replicationFactor: 1 }] });
    for (const [i, endpoint] of c.bootstrap.entries()) callers.set(i + 1, await KafkaCaller.connect(endpoint));
    const md = await callers.get(1)!.call(ApiKeys.Metadata, 9, { topics: [{ name: TOPIC }], allowAutoTopicCreation: false });
    for (const p of md.topics[0].partitions) leaders.set(p.partitionIndex, p.leaderId);
    expect(new Set(leaders.values()).size, 'one partition led by each broker').to.equal(2);
  });
  after(async () => {
    for (const k of callers.values()) k.end();
    await c?.stop();
  });

  const produce = (caller: KafkaCaller, version: number, partition: number, records: Buffer | null, acks = -1, topic = TOPIC) =>
    caller.call(ApiKeys.Produce, version, { transactionalId: null, acks, timeoutMs: 5_000, topicData: [{ name: topic, partitionData: [{ index: partition, records }] }] });
  const fetch = (caller: KafkaCaller, version: number, partition: number, fetchOffset: number, extra: object = {}) =>
    caller.call(ApiKeys.Fetch, version, consumerFetchBody(TOPIC, partition, fetchOffset, extra));
  const listOffsets = (caller: KafkaCaller, version: number, partition: number, timestamp: number, topic = TOPIC) =>
    caller.call(ApiKeys.ListOffsets, version, { replicaId: -1, isolationLevel: 0, topics: [{ name: topic, partitions: [{ partitionIndex: partition, currentLeaderEpoch: -1, timestamp }] }] });

  it('stores a produced batch and serves the same bytes back (no re-encoding), v3 and v9 alike', async () => {
    const sent = [batch(['a', 'b', 'c']), batch(['d'])];
    const r3 = await produce(leaderOf(0), 3, 0, sent[0]!);
    const r9 = await produce(leaderOf(0), 9, 0, sent[1]!);
    expect(r3.responses[0].partitionResponses[0]).to.include({ index: 0, errorCode: ErrorCode.NONE, baseOffset: 0 });
    expect(r9.responses[0].partitionResponses[0]).to.include({ index: 0, errorCode: ErrorCode.NONE, baseOffset: 3 });
    for (const v of [4, 11, 12]) {
      const f = await fetch(leaderOf(0), v, 0, 0);
      const p = f.responses[0].partitions[0];
      expect(p.errorCode).to.equal(ErrorCode.NONE);
      expect(p.highWatermark).to.equal(4);
      expect(p.lastStableOffset).to.equal(4);
      const got: Buffer = p.records;
      const stored = decodeRecordBatches(got);
      expect(stored.map((b) => b.baseOffset)).to.deep.equal([0, 3]);
      // byte for byte what was sent, once the leader-assigned fields (baseOffset at 0..7 and
      // partitionLeaderEpoch at 12..15, outside the CRC) are put back
      let pos = 0;
      for (const s of sent) {
        const copy = Buffer.from(got.subarray(pos, pos + s.length));
        copy.fill(0, 0, 8);
        s.copy(copy, 12, 12, 16);
        expect(copy.equals(s)).to.equal(true);
        pos += s.length;
      }
      expect(stored[0]!.records.map((r) => Buffer.from(r.value!).toString())).to.deep.equal(['a', 'b', 'c']);
    }
  });

  it('answers per partition: NOT_LEADER_OR_FOLLOWER from a broker that does not lead it, UNKNOWN_TOPIC_OR_PARTITION for an unknown topic or a partition its topic does not have', async () => {
    const r = await produce(followerOf(1), 7, 1, batch(['x']));
    expect(r.responses[0].partitionResponses[0].errorCode).to.equal(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    const u = await produce(leaderOf(1), 7, 0, batch(['x']), -1, 'no-such-topic');
    expect(u.responses[0].partitionResponses[0].errorCode).to.equal(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    const f = await fetch(followerOf(1), 11, 1, 0);
    expect(f.responses[0].partitions[0].errorCode).to.equal(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    const l = await listOffsets(followerOf(1), 5, 1, -1);
    expect(l.topics[0].partitions[0].errorCode).to.equal(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    const lu = await listOffsets(followerOf(1), 5, 0, -1, 'no-such-topic');
    expect(lu.topics[0].partitions[0].errorCode).to.equal(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    // the topic has partitions 0 and 1: partition 2 is no partition (as Kafka's metadata cache tells), not another broker's
    for (const caller of [leaderOf(0), leaderOf(1)]) {
      expect((await produce(caller, 9, 2, batch(['x']))).responses[0].partitionResponses[0].errorCode).to.equal(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
      expect((await fetch(caller, 11, 2, 0)).responses[0].partitions[0].errorCode).to.equal(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
      expect((await listOffsets(caller, 5, 2, -1)).topics[0].partitions[0].errorCode).to.equal(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    }
  });

  it('refuses bad acks, transactional batches without a transactional id and corrupt batches, appending nothing', async () => {
    const before = (await listOffsets(leaderOf(1), 1, 1, -1)).topics[0].partitions[0].offset;
    const bad = await leaderOf(1).call(ApiKeys.Produce, 7, { transactionalId: null, acks: 2, timeoutMs: 1000, topicData: [{ name: TOPIC, partitionData: [{ index: 1, records: batch(['x']) }] }] });
    expect(bad.responses[0].partitionResponses[0].errorCode).to.equal(ErrorCode.INVALID_REQUIRED_ACKS);
    const txnBatch = encodeRecordBatch({ transactional: true, producerId: 5, producerEpoch: 0, baseSequence: 0, records: [{ value: Buffer.from('x'), timestamp: Date.now() }] });
    const txn = await leaderOf(1).call(ApiKeys.Produce, 7, { transactionalId: null, acks: -1, timeoutMs: 1000, topicData: [{ name: TOPIC, partitionData: [{ index: 1, records: txnBatch }] }] });
    expect(txn.responses[0].partitionResponses[0].errorCode).to.equal(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    const corrupt = batch(['y']);
    corrupt[corrupt.length - 1] ^= 0xff; // breaks the CRC
    const cr = await produce(leaderOf(1), 9, 1, corrupt);
    expect(cr.responses[0].partitionResponses[0].errorCode).to.equal(ErrorCode.CORRUPT_MESSAGE);
    expect(cr.responses[0].partitionResponses[0].errorMessage).to.be.a('string');
    const empty = await produce(leaderOf(1), 9, 1, null);
    expect(empty.responses[0].partitionResponses[0].errorCode).to.not.equal(ErrorCode.NONE);
    expect((await listOffsets(leaderOf(1), 1, 1, -1)).topics[0].partitions[0].offset).to.equal(before);
  });

  it('a long-poll fetch waits for data and returns as soon as a record arrives', async () => {
    const hw = (await listOffsets(leaderOf(1), 5, 1, -1)).topics[0].partitions[0].offset;
    const started = Date.now();
    const waiting = fetch(leaderOf(1), 11, 1, hw, { maxWaitMs: 10_000, minBytes: 1 });
    const writer = await KafkaCaller.connect(c.bootstrap[leaders.get(1)! - 1]!);
    const broker = { node: 'main', path: brokerPath(leaders.get(1)!) };
    await checkFor(async () => ((await c.handle.mainSystem.ask(broker, { type: 'DescribeBroker' })) as BrokerDescription).pendingFetches === 1);
    await produce(writer, 9, 1, batch(['wake']));
    writer.end();
    const f = await waiting;
    expect(Date.now() - started).to.be.lessThan(5_000);
    const recs = decodeRecordBatches(f.responses[0].partitions[0].records).flatMap((b) => b.records);
    expect(recs.map((r) => Buffer.from(r.value!).toString())).to.deep.equal(['wake']);
    const idle = Date.now();
    const none = await fetch(leaderOf(1), 11, 1, hw + 1, { maxWaitMs: 200, minBytes: 1 });
    expect(Date.now() - idle).to.be.at.least(150);
    expect(none.responses[0].partitions[0].records.length).to.equal(0);
  });

  it('answers OFFSET_OUT_OF_RANGE for a fetch beyond the log end', async () => {
    const f = await fetch(leaderOf(0), 11, 0, 1_000_000);
    expect(f.responses[0].partitions[0].errorCode).to.equal(ErrorCode.OFFSET_OUT_OF_RANGE);
  });

  it('ListOffsets: earliest, latest and by timestamp (v1 and v6)', async () => {
    const t0 = Date.now() + 60_000;
    await produce(leaderOf(1), 9, 1, batch(['t0', 't1', 't2'], t0));
    const latest = (await listOffsets(leaderOf(1), 6, 1, -1)).topics[0].partitions[0];
    expect(latest.errorCode).to.equal(ErrorCode.NONE);
    expect((await listOffsets(leaderOf(1), 1, 1, -2)).topics[0].partitions[0].offset).to.equal(0);
    const byTime = (await listOffsets(leaderOf(1), 6, 1, t0 + 1)).topics[0].partitions[0];
    expect(byTime.offset).to.equal(latest.offset - 2);
    expect(byTime.timestamp).to.equal(t0 + 1);
  });

  it('OffsetForLeaderEpoch gives the end offset of an epoch (v0 and v4)', async () => {
    const latest = (await listOffsets(leaderOf(0), 6, 0, -1)).topics[0].partitions[0];
    for (const v of [0, 2, 4]) {
      const r = await leaderOf(0).call(ApiKeys.OffsetForLeaderEpoch, v, { replicaId: -1, topics: [{ topic: TOPIC, partitions: [{ partition: 0, currentLeaderEpoch: -1, leaderEpoch: latest.leaderEpoch }] }] });
      expect(r.topics[0].partitions[0]).to.include({ errorCode: ErrorCode.NONE, endOffset: latest.offset });
    }
    const other = await followerOf(0).call(ApiKeys.OffsetForLeaderEpoch, 4, { replicaId: -1, topics: [{ topic: TOPIC, partitions: [{ partition: 0, currentLeaderEpoch: -1, leaderEpoch: 0 }] }] });
    expect(other.topics[0].partitions[0].errorCode).to.equal(ErrorCode.NOT_LEADER_OR_FOLLOWER);
  });
  it('DeleteRecords: -1 means the high watermark, beyond it is OFFSET_OUT_OF_RANGE, a non-leader says so', async () => {
    await produce(leaderOf(1), 9, 1, batch(['d0', 'd1', 'd2']));
    const hw = (await listOffsets(leaderOf(1), 5, 1, -1)).topics[0].partitions[0].offset;
    const del = (caller: KafkaCaller, offset: number) =>
      caller.call(ApiKeys.DeleteRecords, 2, { topics: [{ name: TOPIC, partitions: [{ partitionIndex: 1, offset }] }], timeoutMs: 5_000 });
    expect((await del(leaderOf(1), hw + 5)).topics[0].partitions[0]).to.include({ errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, lowWatermark: -1 });
    expect((await del(followerOf(1), 1)).topics[0].partitions[0].errorCode).to.equal(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    expect((await del(leaderOf(1), hw - 1)).topics[0].partitions[0]).to.include({ errorCode: ErrorCode.NONE, lowWatermark: hw - 1 });
    expect((await listOffsets(leaderOf(1), 1, 1, -2)).topics[0].partitions[0].offset).to.equal(hw - 1);
    expect((await fetch(leaderOf(1), 11, 1, 0)).responses[0].partitions[0].errorCode).to.equal(ErrorCode.OFFSET_OUT_OF_RANGE);
    const all = await leaderOf(1).call(ApiKeys.DeleteRecords, 0, { topics: [{ name: TOPIC, partitions: [{ partitionIndex: 1, offset: -1 }] }], timeoutMs: 5_000 });
    expect(all.topics[0].partitions[0]).to.include({ errorCode: ErrorCode.NONE, lowWatermark: hw });
  });
});
