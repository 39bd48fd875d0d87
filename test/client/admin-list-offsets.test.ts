/**
 * admin.listOffsets, admin.fetchTopicOffsetsByTimestamp, admin.deleteRecords and deleteTopicRecords on a real
 * in-process cluster: each partition's offset for earliest / latest / max-timestamp / a time from
 * its leader (read_committed stopping at an open transaction), KafkaJS's fallback to the high
 * watermark, and records deleted up to an offset (per partition with deleteRecords, per topic
 * with deleteTopicRecords) with each partition's refusal named.
 */
import { expect } from 'chai';
import type { Admin } from '../../src/client/admin.js';
import { SamsaError } from '../../src/client/errors.js';
import type { Producer } from '../../src/client/producer.js';
import type { SamsaClient } from '../../src/client/samsa.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { checkFor } from '../helpers/check-for.js';
import { TestCluster } from '../helpers/cluster.js';

const T0 = 1_700_000_000_000;

describe('client/admin listOffsets, fetchTopicOffsetsByTimestamp, deleteRecords, deleteTopicRecords', function () {
  this.timeout(60_000);
  let c: TestCluster;
  let samsa: SamsaClient;
  let admin: Admin;
  let producer: Producer;

  before(async () => {
    c = await TestCluster.start({ brokers: 3, brokerConfig: { 'transaction.state.log.num.partitions': 1 } });
    samsa = c.samsa();
    admin = samsa.admin();
    await admin.connect();
    producer = samsa.producer();
    await producer.connect();
    await c.client.createTopic('timed', 2, 2);
    // partition 0: times T0+10, T0+30, T0+20 (the largest in the middle); partition 1: T0+5
    await producer.send({ topic: 'timed', messages: [10, 30, 20].map((d) => ({ partition: 0, value: `v${d}`, timestamp: String(T0 + d) })) });
    await producer.send({ topic: 'timed', messages: [{ partition: 1, value: 'v5', timestamp: String(T0 + 5) }] });
  });
  after(async () => {
    await producer?.disconnect();
    await admin?.disconnect();
    await c?.stop();
  });

  const both = [
    { topic: 'timed', partition: 0 },
    { topic: 'timed', partition: 1 },
  ];
  const failure = (p: Promise<unknown>): Promise<SamsaError> =>
    p.then(
      () => expect.fail('expected a SamsaError'),
      (e: unknown) => {
        expect(e).to.be.instanceOf(SamsaError);
        return e as SamsaError;
      },
    );

  it('earliest and latest: the log start and the high watermark, no timestamp', async () => {
    const earliest = await admin.listOffsets('earliest', both);
    expect(earliest.map((p) => [p.partition, p.errorCode, p.offset, p.timestamp])).to.deep.equal([
      [0, 0, 0, -1],
      [1, 0, 0, -1],
    ]);
    const latest = await admin.listOffsets('latest', both);
    expect(latest.map((p) => [p.partition, p.errorCode, p.offset, p.timestamp])).to.deep.equal([
      [0, 0, 3, -1],
      [1, 0, 1, -1],
    ]);
    expect(latest[0]!.leaderEpoch).to.be.at.least(0);
  });

  it('max-timestamp: the record with the largest timestamp, with its time', async () => {
    const r = await admin.listOffsets('max-timestamp', both);
    expect(r.map((p) => [p.partition, p.offset, p.timestamp])).to.deep.equal([
      [0, 1, T0 + 30],
      [1, 0, T0 + 5],
    ]);
  });

  it('a timestamp: the first offset at or after it, -1 where no record is that late', async () => {
    const r = await admin.listOffsets({ timestamp: T0 + 15 }, both);
    expect(r.map((p) => [p.partition, p.errorCode, p.offset, p.timestamp])).to.deep.equal([
      [0, 0, 1, T0 + 30],
      [1, 0, -1, -1],
    ]);
    // at the timestamp itself: that record
    expect((await admin.listOffsets({ timestamp: T0 + 30 }, [both[0]!]))[0]!.offset).to.equal(1);
  });

  it('per-partition errors: an unknown topic or partition, answered beside the others in the order asked', async () => {
    const r = await admin.listOffsets('latest', [{ topic: 'timed', partition: 7 }, { topic: 'nope', partition: 0 }, both[1]!]);
    expect(r.map((p) => [p.topic, p.partition, p.errorCode, p.offset])).to.deep.equal([
      ['timed', 7, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1],
      ['nope', 0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1],
      ['timed', 1, ErrorCode.NONE, 1],
    ]);
  });

  it('a malformed spec or isolation level throws INVALID_REQUEST', async () => {
    expect((await failure(admin.listOffsets({ timestamp: -5 }, both))).errorCode).to.equal(ErrorCode.INVALID_REQUEST);
    expect((await failure(admin.listOffsets('newest' as never, both))).errorCode).to.equal(ErrorCode.INVALID_REQUEST);
    expect((await failure(admin.listOffsets('latest', both, { isolationLevel: 'dirty' as never }))).errorCode).to.equal(ErrorCode.INVALID_REQUEST);
  });

  it('read_committed: latest stops at an open transaction until it commits', async () => {
    await c.client.createTopic('txn-offsets', 1, 2);
    const p0 = [{ topic: 'txn-offsets', partition: 0 }];
    await producer.send({ topic: 'txn-offsets', messages: [{ partition: 0, value: 'plain' }] });
    const tp = samsa.producer({ transactionalId: 'list-offsets-txn' });
    await tp.connect();
    try {
      const txn = await tp.transaction();
      await txn.send({ topic: 'txn-offsets', messages: [{ partition: 0, value: 'in-txn' }] });
      expect((await admin.listOffsets('latest', p0))[0]!.offset).to.equal(2);
      expect((await admin.listOffsets('latest', p0, { isolationLevel: 'read_committed' }))[0]!.offset).to.equal(1);
      await txn.commit();
      // once the COMMIT marker (an offset too) is replicated
      const committed = await checkFor(async () => ((await admin.listOffsets('latest', p0, { isolationLevel: 'read_committed' }))[0]!.offset === 3 ? true : null)).catch(() => false);
      expect(committed).to.equal(true);
    } finally {
      await tp.disconnect();
    }
  });

  it("fetchTopicOffsetsByTimestamp: KafkaJS's shape, the high watermark where no record is that late or with no timestamp", async () => {
    expect(await admin.fetchTopicOffsetsByTimestamp('timed', T0 + 15)).to.deep.equal([
      { partition: 0, offset: 1 },
      { partition: 1, offset: 1 },
    ]);
    expect(await admin.fetchTopicOffsetsByTimestamp('timed', T0)).to.deep.equal([
      { partition: 0, offset: 0 },
      { partition: 1, offset: 0 },
    ]);
    expect(await admin.fetchTopicOffsetsByTimestamp('timed')).to.deep.equal([
      { partition: 0, offset: 3 },
      { partition: 1, offset: 1 },
    ]);
    expect((await failure(admin.fetchTopicOffsetsByTimestamp('nope', T0))).errorCode).to.equal(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  });

  it("deleteTopicRecords: the log start moves to the offset ('-1': the high watermark), the new low watermarks returned", async () => {
    await c.client.createTopic('doomed', 2, 2);
    await c.client.produce('doomed', 0, ['a', 'b', 'c', 'd']);
    await c.client.produce('doomed', 1, ['e', 'f']);
    const r = await admin.deleteTopicRecords({
      topic: 'doomed',
      partitions: [
        { partition: 0, offset: 3 },
        { partition: 1, offset: '-1' },
      ],
    });
    expect(r).to.deep.equal([
      { partition: 0, lowWatermark: 3 },
      { partition: 1, lowWatermark: 2 },
    ]);
    expect((await admin.fetchTopicOffsets('doomed')).map((p) => [p.low, p.high])).to.deep.equal([
      [3, 4],
      [2, 2],
    ]);
    // below the log start: nothing deleted, the log start stays
    expect(await admin.deleteTopicRecords({ topic: 'doomed', partitions: [{ partition: 0, offset: 1 }] })).to.deep.equal([{ partition: 0, lowWatermark: 3 }]);
  });

  it('deleteTopicRecords: partitions refused are named in the error, the others done', async () => {
    await c.client.createTopic('guarded', 2, 2);
    await c.client.produce('guarded', 0, ['a', 'b']);
    await c.client.produce('guarded', 1, ['c', 'd']);
    const err = await failure(
      admin.deleteTopicRecords({
        topic: 'guarded',
        partitions: [
          { partition: 0, offset: 9 },
          { partition: 1, offset: 1 },
          { partition: 5, offset: 0 },
        ],
      }),
    );
    expect(err.errorCode).to.equal(ErrorCode.OFFSET_OUT_OF_RANGE);
    expect(err.message).to.contain('guarded-0').and.to.contain('guarded-5').and.not.to.contain('guarded-1 ');
    expect((await admin.fetchTopicOffsets('guarded')).map((p) => p.low)).to.deep.equal([0, 1]);
  });

  it("deleteRecords (Kafka's Admin.deleteRecords): partitions of several topics, each answer with its error code in the order given", async () => {
    await c.client.createTopic('swept', 1, 2);
    await c.client.produce('swept', 0, ['a', 'b', 'c']);
    const r = await admin.deleteRecords([
      { topic: 'swept', partition: 0, offset: 2 },
      { topic: 'nope', partition: 0, offset: 1 },
      { topic: 'guarded', partition: 0, offset: -5 },
    ]);
    expect(r.map((p) => [p.topic, p.partition, p.errorCode, p.lowWatermark])).to.deep.equal([
      ['swept', 0, ErrorCode.NONE, 2],
      ['nope', 0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1],
      ['guarded', 0, ErrorCode.OFFSET_OUT_OF_RANGE, -1],
    ]);
    expect(r[0]!.errorMessage).to.equal(null);
    expect(r[1]!.errorMessage).to.contain('nope-0');
    expect((await failure(admin.deleteRecords([{ topic: 'swept', partition: 0, offset: 1.5 }]))).errorCode).to.equal(ErrorCode.INVALID_REQUEST);
  });

  it('deleteTopicRecords: a malformed request throws INVALID_REQUEST before anything is asked', async () => {
    const bad = [
      { topic: '', partitions: [{ partition: 0, offset: 1 }] },
      { topic: 'timed', partitions: [] },
      { topic: 'timed', partitions: [{ partition: 0, offset: -2 }] },
      { topic: 'timed', partitions: [{ partition: 0, offset: 'x' }] },
      {
        topic: 'timed',
        partitions: [
          { partition: 0, offset: 1 },
          { partition: 0, offset: 2 },
        ],
      },
    ];
    for (const b of bad) expect((await failure(admin.deleteTopicRecords(b))).errorCode, JSON.stringify(b)).to.equal(ErrorCode.INVALID_REQUEST);
    expect((await admin.fetchTopicOffsets('timed')).map((p) => p.low)).to.deep.equal([0, 0]);
  });
});
