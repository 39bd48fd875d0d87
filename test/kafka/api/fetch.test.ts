/**
 * Fetch v17 -> v18 over the wire (src/kafka/api/fetch.ts). v18 (KIP-1166) adds only a tagged field
 * to each partition, the high watermark a follower knows (tag 1), which a client never sends and
 * KRaft's followers do: the listener reads past it, as Kafka's decoder skips a tag it does not
 * act on, and answers v18 as v17 with the same records; a v18 request of a plain consumer (no
 * tag) is answered the same.
 */
import { expect } from 'chai';
import { bodyCodec } from '../../../src/kafka/protocol/registry.js';
import { ApiKeys, Writer } from '../../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { decodeRecordBatches, encodeRecordBatch } from '../../../src/protocol/record-batch.js';
import { checkFor } from '../../helpers/check-for.js';
import { startKafkaCluster, type KafkaTestCluster } from '../../helpers/kafka-cluster.js';
import { KafkaCaller, RawKafkaSocket, consumerFetchBody, fetchPartition } from '../../helpers/raw-kafka.js';

const TOPIC = 'fetch-v18';

/** A consumer's v17/v18 fetch of partition 0 by topic id; `partitionMaxBytes` marks where the partition ends. */
const fetchBody = (topicId: string, partitionMaxBytes: number) => consumerFetchBody('', 0, 0, { topics: [{ topicId, partitions: [fetchPartition(0, 0, partitionMaxBytes)] }] });

/**
 * A whole v18 Fetch frame whose partition carries tag 1 (the follower's high watermark, `hw`):
 * the partition's tagged-field section, right after its max bytes, goes from "none" to that tag.
 */
function frameWithHighWatermark(topicId: string, hw: number, correlationId: number): Buffer {
  const marker = 0x0badcafe;
  const w = new Writer();
  w.int32(0);
  w.int16(ApiKeys.Fetch);
  w.int16(18);
  w.int32(correlationId);
  w.nullableString('fetch-test');
  w.uvarint(0);
  bodyCodec('request', ApiKeys.Fetch, 18).encode(w, fetchBody(topicId, marker) as never);
  const plain = Buffer.from(w.finish());
  const mark = Buffer.alloc(4);
  mark.writeInt32BE(marker);
  const at = plain.indexOf(mark) + 4;
  expect(plain[at], 'the partition has no tagged fields of its own').to.equal(0);
  const tag = Buffer.alloc(1 + 1 + 1 + 8);
  tag[0] = 1; // one tagged field
  tag[1] = 1; // tag 1
  tag[2] = 8; // of 8 bytes
  tag.writeBigInt64BE(BigInt(hw), 3);
  const frame = Buffer.concat([plain.subarray(0, at), tag, plain.subarray(at + 1)]);
  frame.writeInt32BE(frame.length - 4, 0);
  return frame;
}

describe('Kafka API: Fetch v18', function () {
  this.timeout(30_000);
  let c: KafkaTestCluster;
  let k: KafkaCaller;
  let topicId: string;

  before(async () => {
    c = await startKafkaCluster({ brokers: 1, topics: [{ name: TOPIC, partitions: 1, replicationFactor: 1 }] });
    k = await KafkaCaller.connect(c.bootstrap[0]!);
    topicId = await checkFor(async () => {
      const md = await k.call(ApiKeys.Metadata, 12, { topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name: TOPIC }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
      return md.topics[0]?.errorCode === ErrorCode.NONE && md.topics[0].partitions[0]?.leaderId === 1 ? (md.topics[0].topicId as string) : undefined;
    }, 10_000, 20);
    const records = encodeRecordBatch({ records: ['a', 'b'].map((v) => ({ value: Buffer.from(v), timestamp: Date.now() })) });
    const p = await k.call(ApiKeys.Produce, 12, { transactionalId: null, acks: -1, timeoutMs: 5_000, topicData: [{ name: TOPIC, partitionData: [{ index: 0, records }] }] });
    expect(p.responses[0].partitionResponses[0].errorCode).to.equal(ErrorCode.NONE);
  });
  after(async () => {
    k?.end();
    await c?.stop();
  });

  it('ApiVersions advertises Fetch 4-18', async () => {
    const r = await k.call(ApiKeys.ApiVersions, 3, { clientSoftwareName: 'test', clientSoftwareVersion: '1' });
    expect(r.apiKeys.find((a: { apiKey: number }) => a.apiKey === ApiKeys.Fetch)).to.deep.include({ minVersion: 4, maxVersion: 18 });
  });

  it("answers v18 as v17: the same partition, high watermark and records, whether or not the partition carries a follower's high watermark", async () => {
    const v17 = await k.call(ApiKeys.Fetch, 17, fetchBody(topicId, 1 << 20));
    const v18 = await k.call(ApiKeys.Fetch, 18, fetchBody(topicId, 1 << 20));
    const raw = await RawKafkaSocket.connect(c.bootstrap[0]!);
    try {
      raw.write(frameWithHighWatermark(topicId, 1, 77));
      const tagged = await raw.response(ApiKeys.Fetch, 18);
      expect(tagged.correlationId).to.equal(77);
      for (const r of [v18, tagged.body]) {
        expect(r.errorCode).to.equal(ErrorCode.NONE);
        expect(r.responses[0].topicId).to.equal(topicId);
        const p = r.responses[0].partitions[0];
        const q = v17.responses[0].partitions[0];
        expect([p.errorCode, p.highWatermark, p.lastStableOffset, p.logStartOffset]).to.deep.equal([ErrorCode.NONE, 2, 2, 0]);
        expect([p.errorCode, p.highWatermark, p.lastStableOffset, p.logStartOffset]).to.deep.equal([q.errorCode, q.highWatermark, q.lastStableOffset, q.logStartOffset]);
        expect(Buffer.from(p.records).equals(Buffer.from(q.records))).to.equal(true);
        expect(decodeRecordBatches(p.records)[0]!.records.map((x) => Buffer.from(x.value!).toString())).to.deep.equal(['a', 'b']);
      }
    } finally {
      raw.end();
    }
  });

  it('Metadata v13 answers as v12 with a top-level error code of none (KIP-1102: REBOOTSTRAP_REQUIRED is never needed here)', async () => {
    const ask = { topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name: TOPIC }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false };
    const v12 = await k.call(ApiKeys.Metadata, 12, ask);
    const v13 = await k.call(ApiKeys.Metadata, 13, ask);
    expect(v13.errorCode).to.equal(ErrorCode.NONE);
    expect(v13.brokers).to.deep.equal(v12.brokers);
    expect(v13.topics).to.deep.equal(v12.topics);
    expect([v13.clusterId, v13.controllerId]).to.deep.equal([v12.clusterId, v12.controllerId]);
    const byId = await k.call(ApiKeys.Metadata, 13, { topics: [{ topicId, name: null }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
    expect(byId.errorCode).to.equal(ErrorCode.NONE);
    expect(byId.topics.map((t: { name: string; errorCode: number }) => [t.name, t.errorCode])).to.deep.equal([[TOPIC, ErrorCode.NONE]]);
    const r = await k.call(ApiKeys.ApiVersions, 3, { clientSoftwareName: 'test', clientSoftwareVersion: '1' });
    expect(r.apiKeys.find((a: { apiKey: number }) => a.apiKey === ApiKeys.Metadata)).to.deep.include({ minVersion: 0, maxVersion: 13 });
  });
});
