/**
 * The producer client against a real in-process cluster: partitioning, acks, batching,
 * compression, errors, back-pressure at buffer.memory, and retries through a leader failover.
 */
import { expect } from 'chai';
import { partitionForKey } from '../../src/client/partitioner.js';
import { SamsaError } from '../../src/client/errors.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { checkFor } from '../helpers/check-for.js';
import { sampleText } from '../helpers/sample-text.js';
import { TestCluster, fastFailover } from '../helpers/cluster.js';

const FAST = fastFailover();

async function rejection(p: Promise<unknown>): Promise<SamsaError> {
  try {
    await p;
  } catch (err) {
    return err as SamsaError;
  }
  throw new Error('expected a rejection');
}

describe('client/producer', function () {
  this.timeout(60_000);
  let c: TestCluster;

  before(async () => {
    c = await TestCluster.start({ brokers: 3, ...FAST });
    await c.client.createTopic('keyed', 6, 3);
    await c.client.createTopic('plain', 3, 2);
  });
  after(async () => {
    await c?.stop();
  });

  it('puts keyed records on Kafka\'s partitions (murmur2) and reports their offsets', async () => {
    const producer = c.samsa().producer();
    await producer.connect();
    const keys = Array.from({ length: 30 }, (_, i) => `user-${i}`);
    const res = await producer.send({ topic: 'keyed', messages: keys.map((k) => ({ key: k, value: `v-${k}` })) });
    expect(res.every((r) => r.errorCode === 0 && r.baseOffset >= 0)).to.equal(true);
    for (let p = 0; p < 6; p++) {
      const recs = await c.client.readAll('keyed', p);
      for (const r of recs) expect(partitionForKey(String(r.key), 6)).to.equal(p);
    }
    const total = (await Promise.all([0, 1, 2, 3, 4, 5].map((p) => c.client.readAll('keyed', p)))).flat();
    expect(total.map((r) => String(r.key)).sort()).to.deep.equal([...keys].sort());
    await producer.disconnect();
  });

  it("metrics(): Kafka's producer-metrics of what it sent, tagged with its client.id; refused before connect()", async () => {
    const producer = c.samsa().producer({ 'client.id': 'metrics-client', 'linger.ms': 0 });
    expect((await rejection(producer.metrics())).errorCode).to.equal(ErrorCode.NETWORK_EXCEPTION);
    await producer.connect();
    await producer.send({ topic: 'plain', messages: Array.from({ length: 25 }, (_, i) => ({ partition: i % 3, value: `m-${i}` })) });
    const metrics = await producer.metrics();
    const byName = new Map(metrics.filter((m) => m.group === 'producer-metrics').map((m) => [m.name, m]));
    // and per topic (producer-topic-metrics)
    const topicSent = metrics.find((m) => m.group === 'producer-topic-metrics' && m.name === 'record-send-total');
    expect(topicSent).to.deep.include({ value: 25, tags: { 'client-id': 'metrics-client', topic: 'plain' } });
    expect(byName.get('record-send-total')).to.deep.include({ group: 'producer-metrics', value: 25, tags: { 'client-id': 'metrics-client' } });
    expect(byName.get('record-send-total')!.description).to.be.a('string').and.not.equal('');
    expect(byName.get('request-total')!.value).to.be.within(1, 25);
    expect(byName.get('response-total')!.value).to.equal(byName.get('request-total')!.value);
    expect(byName.get('request-latency-avg')!.value).to.be.at.least(0);
    expect(byName.get('record-error-total')!.value).to.equal(0);
    await producer.disconnect();
  });

  it('honours an explicit partition, headers and timestamps; rejects a partition that does not exist', async () => {
    const producer = c.samsa().producer({ acks: 1 });
    await producer.connect();
    const [r] = await producer.send({ topic: 'plain', messages: [{ partition: 2, value: 'hello', headers: { h: 'x', multi: ['1', '2'] }, timestamp: 12345 }] });
    expect(r).to.deep.include({ topic: 'plain', partition: 2, errorCode: 0 });
    // acks=1: the high watermark follows once the follower has fetched
    const recs = await checkFor(async () => {
      const got = await c.client.readAll('plain', 2, r!.baseOffset);
      return got.length > 0 ? got : null;
    });
    expect(recs[0]!.timestamp).to.equal(12345);
    expect(recs[0]!.headers.map((h) => [h.key, String(h.value)])).to.deep.equal([['h', 'x'], ['multi', '1'], ['multi', '2']]);
    const err = await rejection(producer.send({ topic: 'plain', messages: [{ partition: 7, value: 'x' }] }));
    expect(err.message).to.match(/Invalid partition given with record: 7/);
    await producer.disconnect();
  });

  it('sends keyless records stickily: one partition per batch with partitioner.sticky.bytes = batch.size', async () => {
    const producer = c.samsa().producer({ 'batch.size': 200, 'linger.ms': 0, 'partitioner.sticky.bytes': 200 });
    await producer.connect();
    const res = await producer.send({ topic: 'plain', messages: Array.from({ length: 40 }, (_, i) => ({ value: `sticky-${i}` })) });
    expect(new Set(res.map((r) => r.partition)).size).to.be.greaterThan(1);
    await producer.disconnect();
  });

  it('sends keyless records in runs of partitioner.sticky.bytes per partition (128 KiB by default)', async () => {
    const byDefault = c.samsa().producer({ 'batch.size': 200, 'linger.ms': 0 });
    await byDefault.connect();
    const res = await byDefault.send({ topic: 'plain', messages: Array.from({ length: 40 }, (_, i) => ({ value: `run-${i}` })) });
    // ~1.5 KiB of batches: one run, one partition
    expect(new Set(res.map((r) => r.partition)).size).to.equal(1);
    await byDefault.disconnect();
    // runs of 400 bytes (two batches) with adaptive partitioning off: the records move on
    const uniform = c.samsa().producer({ 'batch.size': 200, 'linger.ms': 0, 'partitioner.adaptive.partitioning.enable': false, 'partitioner.sticky.bytes': 400 });
    await uniform.connect();
    const res2 = await uniform.send({ topic: 'plain', messages: Array.from({ length: 40 }, (_, i) => ({ value: `run-${i}` })) });
    expect(new Set(res2.map((r) => r.partition)).size).to.be.greaterThan(1);
    await uniform.disconnect();
  });

  it('supports acks 0, 1 and all', async () => {
    for (const acks of [0, 1, 'all'] as const) {
      const producer = c.samsa().producer({ acks });
      await producer.connect();
      const res = await producer.send({ topic: 'plain', messages: [{ partition: 0, value: `acks-${acks}` }] });
      expect(res[0]!.errorCode).to.equal(0);
      if (acks === 0) expect(res[0]!.baseOffset).to.equal(-1);
      else expect(res[0]!.baseOffset).to.be.at.least(0);
      await producer.disconnect();
    }
    await checkFor(async () => (await c.client.readAll('plain', 0)).map((r) => String(r.value)).includes('acks-0'));
  });

  for (const [codec, id] of [['gzip', 1], ['snappy', 2], ['lz4', 3], ['zstd', 4]] as const) {
    it(`compresses whole batches with ${codec}`, async () => {
      const producer = c.samsa().producer({ 'compression.type': codec });
      await producer.connect();
      const values = Array.from({ length: 50 }, (_, i) => `compressible ${'z'.repeat(100)} ${codec} ${i}`);
      const res = await producer.send({ topic: 'plain', messages: values.map((v) => ({ partition: 1, value: v })) });
      const batches = await c.client.readBatches('plain', 1, res[0]!.baseOffset);
      expect(batches.map((b) => b.compression)).to.deep.equal([id]);
      expect(batches[0]!.records.map((r) => String(r.value))).to.deep.equal(values);
      await producer.disconnect();
    });
  }

  it("compresses at its codec's compression.<codec>.level (KIP-390): the same records, smaller at a higher level", async () => {
    const text = sampleText(12_000).toString();
    const values = Array.from({ length: 12 }, (_, i) => text.slice(i * 1000, (i + 1) * 1000));
    const sizeAt = async (config: Record<string, unknown>): Promise<number> => {
      const producer = c.samsa().producer({ 'batch.size': 65_536, 'linger.ms': 50, ...config });
      await producer.connect();
      try {
        const res = await producer.send({ topic: 'plain', messages: values.map((v) => ({ partition: 2, value: v })) });
        const [batch] = await c.client.readBatches('plain', 2, res[0]!.baseOffset);
        expect(batch!.records.map((r) => String(r.value))).to.deep.equal(values);
        return batch!.batchLength;
      } finally {
        await producer.disconnect();
      }
    };
    expect(await sizeAt({ 'compression.type': 'gzip', 'compression.gzip.level': 9 })).to.be.below(await sizeAt({ 'compression.type': 'gzip', 'compression.gzip.level': 1 }));
    // lz4's default, 9, is the fast coder (as Kafka's clients use it); 12 searches a chain
    expect(await sizeAt({ 'compression.type': 'lz4', 'compression.lz4.level': '12' })).to.be.below(await sizeAt({ 'compression.type': 'lz4' }));
    expect(await sizeAt({ 'compression.type': 'zstd', 'compression.zstd.level': 19 })).to.be.below(await sizeAt({ 'compression.type': 'zstd', 'compression.zstd.level': 1 }));
    // a level of another codec changes nothing
    expect(await sizeAt({ 'compression.type': 'zstd', 'compression.gzip.level': 1 })).to.equal(await sizeAt({ 'compression.type': 'zstd' }));
  });

  it('rejects bad config keys and values by name', () => {
    expect(() => c.samsa().producer({ 'linger.msec': 5 })).to.throw(/linger\.msec: unknown producer config key/);
    expect(() => c.samsa().producer({ acks: 2 })).to.throw(/acks: must be 0, 1, -1 or "all"/);
    expect(() => c.samsa().producer({ 'compression.type': 'brotli' })).to.throw(/compression.type: "brotli" is not supported: use one of none, gzip, snappy, lz4, zstd$/);
    expect(() => c.samsa().producer({ 'compression.type': 3 })).to.throw(/compression.type: 3 is not supported/);
    expect(() => c.samsa().producer({ 'partitioner.sticky.bytes': -1 })).to.throw(/partitioner\.sticky\.bytes: /);
    expect(() => c.samsa().producer({ 'partitioner.adaptive.partitioning.enable': 'sometimes' })).to.throw(/partitioner\.adaptive\.partitioning\.enable: /);
    expect(() => c.samsa().producer({ 'compression.gzip.level': 0 })).to.throw(/compression\.gzip\.level: 0 is not a gzip level: must be an integer from 1 to 9 \(or -1, the default\)/);
    expect(() => c.samsa().producer({ 'compression.lz4.level': 18 })).to.throw(/compression\.lz4\.level: 18 is not a lz4 level: must be an integer from 1 to 17/);
    expect(() => c.samsa().producer({ 'compression.zstd.level': 'max' })).to.throw(/compression\.zstd\.level: expected an integer, got "max"/);
  });

  it('fails a send to an unknown topic after max.block.ms', async () => {
    const producer = c.samsa().producer({ 'max.block.ms': 300 });
    await producer.connect();
    const err = await rejection(producer.send({ topic: 'no-such-topic', messages: [{ value: 'x' }] }));
    expect(err.errorCode).to.equal(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    expect(err.message).to.match(/not present in metadata after max.block.ms 300/);
    await producer.disconnect();
  });

  /**
   * A producer that knows the leader of a new one-partition topic, then loses it: its batches
   * wait for a leader (and hold memory). Returns the producer and a function that disconnects
   * it and brings the leader back.
   */
  async function producerWithDeadLeader(topic: string, config: Record<string, unknown>) {
    await c.client.createTopic(topic, 1, 1);
    const p = (await c.client.partition(topic, 0))!;
    const producer = c.samsa().producer(config);
    await producer.connect();
    await producer.send({ topic, messages: [{ value: 'warm-up' }] });
    await c.killBroker(p.leader);
    const restore = async () => {
      await producer.disconnect();
      await c.startBroker(p.leader);
      await c.client.waitForBrokers(3);
    };
    return { producer, restore };
  }

  it('blocks sends when buffer.memory is full and fails them after max.block.ms', async () => {
    const { producer, restore } = await producerWithDeadLeader('stuck', { 'buffer.memory': 4096, 'max.block.ms': 400, 'delivery.timeout.ms': 3_000, 'retry.backoff.ms': 50 });
    const first = producer.send({ topic: 'stuck', messages: [{ value: 'x'.repeat(3000) }] });
    const t0 = Date.now();
    const blocked = await rejection(producer.send({ topic: 'stuck', messages: [{ value: 'y'.repeat(3000) }] }));
    expect(blocked.errorCode).to.equal(ErrorCode.REQUEST_TIMED_OUT);
    expect(blocked.message).to.match(/buffer.memory 4096 stayed full for max.block.ms 400/);
    expect(Date.now() - t0).to.be.at.least(350);
    const expired = await rejection(first);
    expect(expired.errorCode).to.equal(ErrorCode.REQUEST_TIMED_OUT);
    await restore();
  });

  it('expires every batch waiting for a leader after delivery.timeout.ms, oldest first', async () => {
    const { producer, restore } = await producerWithDeadLeader('stuck-many', { 'batch.size': 1024, 'linger.ms': 0, 'delivery.timeout.ms': 1_000, 'retry.backoff.ms': 50 });
    // one batch per send (each value fills most of a batch), all queued behind the dead leader
    const order: number[] = [];
    const sends = [0, 1, 2, 3, 4].map((i) =>
      rejection(producer.send({ topic: 'stuck-many', messages: [{ value: String(i).repeat(800) }] })).then((e) => {
        order.push(i);
        return e;
      }),
    );
    const errors = await Promise.all(sends);
    for (const e of errors) {
      expect(e.errorCode).to.equal(ErrorCode.REQUEST_TIMED_OUT);
      expect(e.message).to.match(/delivery.timeout.ms 1000 expired/);
    }
    expect(order).to.deep.equal([0, 1, 2, 3, 4]);
    await restore();
  });

  it('retries through a leader failover: every acknowledged record is there, in order per partition', async () => {
    await c.client.createTopic('failover', 1, 3, { 'min.insync.replicas': 2 });
    const producer = c.samsa().producer({ acks: 'all', 'max.in.flight.requests.per.connection': 1, 'retry.backoff.ms': 50 });
    await producer.connect();
    const acked: string[] = [];
    const leader = (await c.client.partition('failover', 0))!.leader;
    for (let i = 0; i < 60; i++) {
      if (i === 20) await c.killBroker(leader);
      const v = `m-${i}`;
      await producer.send({ topic: 'failover', messages: [{ partition: 0, value: v }] });
      acked.push(v);
    }
    const got = (await c.client.readAll('failover', 0)).map((r) => String(r.value));
    expect(got).to.deep.equal(acked);
    await producer.disconnect();
    await c.startBroker(leader);
    await c.client.waitForBrokers(3);
  });
});
