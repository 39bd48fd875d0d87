/**
 * Incremental fetch sessions (KIP-227) over the Kafka protocol, on one broker: a full fetch with
 * epoch 0 opens a session; incremental fetches answer only partitions with something new, take
 * new positions and forget partitions; the session errors (unknown id, wrong epoch, topic-id
 * versions mixed); closing a session; a long poll on a session; partitions served move to the
 * back; no sessions when the cache has no slots.
 */
import { expect } from 'chai';
import type { BrokerDescription } from '../../../actors/broker/messages.js';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { brokerPath } from '../../../src/protocol/cluster.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { decodeRecordBatches, encodeRecordBatch } from '../../../src/protocol/record-batch.js';
import { ZERO_TOPIC_ID } from '../../../src/protocol/topic-id.js';
import { checkFor } from '../../helpers/check-for.js';
import { startKafkaCluster, type KafkaTestCluster } from '../../helpers/kafka-cluster.js';
import { KafkaCaller, consumerFetchBody } from '../../helpers/raw-kafka.js';

const TOPIC = 'sessions';

interface Part {
  partition: number;
  fetchOffset: number;
}

type Answer = { errorCode: number; sessionId: number; responses: { topic: string; topicId: string; partitions: { partitionIndex: number; errorCode: number; highWatermark: number; logStartOffset: number; records: Uint8Array }[] }[] };

describe('Kafka API: incremental fetch sessions (KIP-227)', function () {
  this.timeout(60_000);
  let c: KafkaTestCluster;
  let k: KafkaCaller;
  let topicId: string;

  before(async () => {
    c = await startKafkaCluster({ brokers: 1, topics: [{ name: TOPIC, partitions: 3, replicationFactor: 1 }] });
    k = await KafkaCaller.connect(c.bootstrap[0]!);
    const md = await checkFor(async () => {
      const r = await k.call(ApiKeys.Metadata, 12, { topics: [{ topicId: ZERO_TOPIC_ID, name: TOPIC }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
      return r.topics[0].partitions.length === 3 && r.topics[0].partitions.every((p: { leaderId: number }) => p.leaderId === 1) ? r : null;
    }, 15_000, 20);
    topicId = md.topics[0].topicId;
  });
  after(async () => {
    k?.end();
    await c?.stop();
  });

  const produce = async (partition: number, ...values: string[]) => {
    const r = await k.call(ApiKeys.Produce, 9, {
      transactionalId: null,
      acks: -1,
      timeoutMs: 5_000,
      topicData: [{ name: TOPIC, partitionData: [{ index: partition, records: encodeRecordBatch({ records: values.map((v) => ({ value: Buffer.from(v), timestamp: Date.now() })) }) }] }],
    });
    expect(r.responses[0].partitionResponses[0].errorCode).to.equal(ErrorCode.NONE);
  };
  const endOf = async (partition: number): Promise<number> => {
    const r = await k.call(ApiKeys.ListOffsets, 5, { replicaId: -1, isolationLevel: 0, topics: [{ name: TOPIC, partitions: [{ partitionIndex: partition, currentLeaderEpoch: -1, timestamp: -1 }] }] });
    return r.topics[0].partitions[0].offset;
  };

  /** A fetch of `parts` (by name before v13, by id after) in session `sessionId` at `epoch`, forgetting `forget`. */
  const fetch = (version: number, sessionId: number, epoch: number, parts: Part[], extra: { forget?: number[]; maxWaitMs?: number; minBytes?: number } = {}): Promise<Answer> =>
    k.call(ApiKeys.Fetch, version, {
      replicaId: -1,
      replicaState: { replicaId: -1, replicaEpoch: -1 },
      maxWaitMs: extra.maxWaitMs ?? 0,
      minBytes: extra.minBytes ?? 0,
      maxBytes: 1 << 20,
      isolationLevel: 0,
      sessionId,
      sessionEpoch: epoch,
      topics:
        parts.length === 0
          ? []
          : [{ topic: TOPIC, topicId, partitions: parts.map((p) => ({ partition: p.partition, currentLeaderEpoch: -1, fetchOffset: p.fetchOffset, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: 1 << 20 })) }],
      forgottenTopicsData: extra.forget ? [{ topic: TOPIC, topicId, partitions: extra.forget }] : [],
      rackId: '',
    });
  const answered = (r: Answer) => r.responses.flatMap((t) => t.partitions.map((p) => p.partitionIndex));
  const values = (r: Answer, partition: number) =>
    decodeRecordBatches(r.responses.flatMap((t) => t.partitions).find((p) => p.partitionIndex === partition)!.records)
      .flatMap((b) => b.records)
      .map((x) => Buffer.from(x.value!).toString());

  for (const version of [12, 13]) {
    it(`v${version}: a full fetch opens a session; incremental fetches answer only what is new, take new positions and forget partitions`, async () => {
      const ends = await Promise.all([0, 1, 2].map(endOf));
      const all = [0, 1, 2].map((partition) => ({ partition, fetchOffset: ends[partition]! }));
      const opened = await fetch(version, 0, 0, all);
      expect(opened.errorCode).to.equal(ErrorCode.NONE);
      expect(opened.sessionId).to.be.above(0);
      expect(answered(opened)).to.deep.equal([0, 1, 2]);
      if (version >= 13) expect(opened.responses[0]!.topicId).to.equal(topicId);
      const id = opened.sessionId;

      // nothing new: an empty answer
      const quiet = await fetch(version, id, 1, []);
      expect(quiet).to.deep.include({ errorCode: ErrorCode.NONE, sessionId: id });
      expect(quiet.responses).to.deep.equal([]);

      // a record on partition 1: only partition 1, with it (and again while the position stays)
      await produce(1, `v${version}-a`);
      const one = await fetch(version, id, 2, []);
      expect(answered(one)).to.deep.equal([1]);
      expect(values(one, 1)).to.deep.equal([`v${version}-a`]);
      expect(answered(await fetch(version, id, 3, []))).to.deep.equal([1]);

      // the client moves its position: nothing new again
      const moved = await fetch(version, id, 4, [{ partition: 1, fetchOffset: ends[1]! + 1 }]);
      expect(moved.responses).to.deep.equal([]);

      // a forgotten partition is no longer read
      const forgot = await fetch(version, id, 5, [], { forget: [2] });
      expect(forgot.responses).to.deep.equal([]);
      await produce(2, 'unseen');
      await produce(0, 'seen');
      const after = await fetch(version, id, 6, []);
      expect(answered(after)).to.deep.equal([0]);

      // forgetting the rest closes the session: answered without one, and the id is gone
      const closed = await fetch(version, id, 7, [], { forget: [0, 1] });
      expect(closed).to.deep.include({ errorCode: ErrorCode.NONE, sessionId: 0 });
      expect((await fetch(version, id, 8, [])).errorCode).to.equal(ErrorCode.FETCH_SESSION_ID_NOT_FOUND);
    });
  }

  it('an unknown session, a wrong or repeated epoch, and a session used across v12 and v13 are errors at the top, with no partitions', async () => {
    expect(await fetch(13, 987654, 1, [])).to.deep.equal({ throttleTimeMs: 0, errorCode: ErrorCode.FETCH_SESSION_ID_NOT_FOUND, sessionId: 0, responses: [], nodeEndpoints: [] });
    const opened = await fetch(13, 0, 0, [{ partition: 0, fetchOffset: 0 }]);
    const id = opened.sessionId;
    expect((await fetch(13, id, 2, [])).errorCode).to.equal(ErrorCode.INVALID_FETCH_SESSION_EPOCH);
    expect((await fetch(13, id, 1, [])).errorCode).to.equal(ErrorCode.NONE);
    // the same epoch again (a duplicate)
    expect((await fetch(13, id, 1, [])).errorCode).to.equal(ErrorCode.INVALID_FETCH_SESSION_EPOCH);
    expect((await fetch(12, id, 2, [])).errorCode).to.equal(ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR);
    // the errors left the session as it was
    expect((await fetch(13, id, 2, [])).errorCode).to.equal(ErrorCode.NONE);
  });

  it('a full fetch naming a session closes it: epoch -1 without a new one, epoch 0 with a new one', async () => {
    const first = (await fetch(13, 0, 0, [{ partition: 0, fetchOffset: 0 }])).sessionId;
    const legacy = await fetch(13, first, -1, [{ partition: 0, fetchOffset: 0 }]);
    expect(legacy.sessionId).to.equal(0);
    expect(answered(legacy)).to.deep.equal([0]);
    expect((await fetch(13, first, 1, [])).errorCode).to.equal(ErrorCode.FETCH_SESSION_ID_NOT_FOUND);
    const second = (await fetch(13, 0, 0, [{ partition: 0, fetchOffset: 0 }])).sessionId;
    const third = await fetch(13, second, 0, [{ partition: 1, fetchOffset: 0 }]);
    expect(third.sessionId).to.be.above(0).and.not.equal(second);
    expect((await fetch(13, second, 1, [])).errorCode).to.equal(ErrorCode.FETCH_SESSION_ID_NOT_FOUND);
  });

  it('a long poll on a session waits for any of its partitions and answers only the one that got records', async () => {
    const ends = await Promise.all([0, 1, 2].map(endOf));
    const id = (await fetch(13, 0, 0, [0, 1, 2].map((partition) => ({ partition, fetchOffset: ends[partition]! })))).sessionId;
    const waiting = fetch(13, id, 1, [], { maxWaitMs: 10_000, minBytes: 1 });
    const broker = { node: 'main', path: brokerPath(1) };
    await checkFor(async () => ((await c.handle.mainSystem.ask(broker, { type: 'DescribeBroker' })) as BrokerDescription).pendingFetches === 1);
    await produce(2, 'wake');
    const woke = await waiting;
    expect(answered(woke)).to.deep.equal([2]);
    expect(values(woke, 2)).to.deep.equal(['wake']);
  });

  it('a moved log start offset is news without records; partitions served move to the back of the session', async () => {
    const ends = await Promise.all([0, 1, 2].map(endOf));
    const id = (await fetch(13, 0, 0, [0, 1, 2].map((partition) => ({ partition, fetchOffset: ends[partition]! })))).sessionId;
    const del = await k.call(ApiKeys.DeleteRecords, 2, { topics: [{ name: TOPIC, partitions: [{ partitionIndex: 1, offset: ends[1]! }] }], timeoutMs: 5_000 });
    expect(del.topics[0].partitions[0].errorCode).to.equal(ErrorCode.NONE);
    const start = await fetch(13, id, 1, []);
    expect(start.responses[0]!.partitions).to.have.length(1);
    expect(start.responses[0]!.partitions[0]).to.deep.include({ partitionIndex: 1, logStartOffset: ends[1] });
    expect(start.responses[0]!.partitions[0]!.records.length).to.equal(0);

    await produce(0, 'first');
    expect(answered(await fetch(13, id, 2, []))).to.deep.equal([0]);
    // partition 0 was served: now 1, 2, 0
    await produce(2, 'second');
    expect(answered(await fetch(13, id, 3, []))).to.deep.equal([2, 0]);
  });
});

describe('Kafka API: fetch sessions with no cache slots', function () {
  this.timeout(30_000);
  it('max.incremental.fetch.session.cache.slots 0: a full fetch gets no session and is answered in full', async () => {
    const c = await startKafkaCluster({ brokers: 1, brokerConfig: { 'max.incremental.fetch.session.cache.slots': 0 }, topics: [{ name: TOPIC, partitions: 1, replicationFactor: 1 }] });
    const k = await KafkaCaller.connect(c.bootstrap[0]!);
    try {
      const r = await checkFor(async () => {
        const x = await k.call(ApiKeys.Fetch, 12, consumerFetchBody(TOPIC, 0, 0, { sessionEpoch: 0 }));
        return x.responses[0]?.partitions[0]?.errorCode === ErrorCode.NONE ? x : null;
      }, 15_000, 50);
      expect(r).to.deep.include({ errorCode: ErrorCode.NONE, sessionId: 0 });
    } finally {
      k.end();
      await c.stop();
    }
  });
});
