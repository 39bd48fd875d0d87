/**
 * The producer's metrics (actors/producer/producer-metrics.ts), Kafka's producer-metrics group,
 * against a fake broker that holds its Produce answers and a fake clock: what a request, its
 * batches and its answer count for, retried and failed records, compression, buffer memory,
 * and the samples running out of time.
 */
import { expect } from 'chai';
import type { ProducerDescription, ProducerMetricsReply, ProducerMsg, SendResult } from '../../../actors/producer/messages.js';
import { producer } from '../../../actors/producer/producer.js';
import { parseProducerConfig } from '../../../actors/producer/producer-config.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { FakeClock } from '../../../src/runtime/clock.js';
import { ActorSystem } from '../../../src/runtime/actor-system.js';
import type { ActorRef, Failure, Message } from '../../../src/runtime/types.js';
import { checkFor } from '../../helpers/check-for.js';
import { fakeBroker, type FakeBrokerMsg, type SeenPartition } from '../../helpers/fake-produce-broker.js';

describe('actors/producer: metrics', function () {
  this.timeout(15_000);
  let sys: ActorSystem;
  let clock: FakeClock;
  let broker: ActorRef<FakeBrokerMsg>;
  let n = 0;

  beforeEach(() => {
    clock = new FakeClock();
    sys = new ActorSystem({ nodeId: 'n1', strictSerialization: true, clock });
    broker = sys.spawn(fakeBroker, { name: 'broker-1' });
  });
  afterEach(async () => {
    await sys.stop();
  });

  const spawnProducer = (config: Record<string, unknown> = {}): ActorRef<ProducerMsg> =>
    sys.spawn(producer, {
      name: `p${++n}`,
      args: {
        bootstrap: [{ brokerId: 1, node: 'n1' }],
        config: { 'client.id': 'metrics-test', 'linger.ms': 0, 'max.in.flight.requests.per.connection': 1, 'batch.size': 4096, 'retry.backoff.ms': 0, 'metrics.sample.window.ms': 1_000, 'metrics.num.samples': 2, ...config },
      },
    });
  const seen = async () => (await sys.ask<Message & { seen: SeenPartition[][]; held: number; metadataAsks: number }>(broker, { type: 'Seen' }, { timeoutMs: 5_000 })) as { seen: SeenPartition[][]; held: number; metadataAsks: number };
  const send = (p: ActorRef<ProducerMsg>, count: number, size: number) =>
    sys.ask<SendResult>(p, { type: 'Send', topics: [{ topic: 't', messages: Array.from({ length: count }, () => ({ value: Buffer.alloc(size, 0x61), partition: 0 })) }] }, { timeoutMs: 10_000 }) as Promise<SendResult | Failure>;
  /** The producer-wide metrics by name, or with `topic` that topic's producer-topic-metrics. */
  const metrics = async (p: ActorRef<ProducerMsg>, topic?: string): Promise<Record<string, number>> => {
    const r = (await sys.ask<ProducerMetricsReply>(p, { type: 'Metrics' }, { timeoutMs: 5_000 })) as ProducerMetricsReply;
    for (const m of r.metrics) {
      expect(m.group).to.be.oneOf(['producer-metrics', 'producer-topic-metrics']);
      expect(m.tags).to.deep.equal(m.group === 'producer-metrics' ? { 'client-id': 'metrics-test' } : { 'client-id': 'metrics-test', topic: m.tags.topic });
      expect(m.description, m.name).to.not.equal('');
    }
    const chosen = r.metrics.filter((m) => (topic === undefined ? m.group === 'producer-metrics' : m.group === 'producer-topic-metrics' && m.tags.topic === topic));
    return Object.fromEntries(chosen.map((m) => [m.name, m.value]));
  };
  const connected = async (p: ActorRef<ProducerMsg>) => {
    void p;
    await checkFor(async () => ((await seen()).metadataAsks >= 1 ? true : null));
  };

  it('nothing sent: totals 0, averages and maxima NaN, the buffer all available', async () => {
    const p = spawnProducer({ 'buffer.memory': 1_048_576 });
    await connected(p);
    const m = await metrics(p);
    // no topic sent to: no producer-topic-metrics
    expect(await metrics(p, 't')).to.deep.equal({});
    expect([m['record-send-total'], m['request-total'], m['response-total'], m['record-retry-total'], m['record-error-total'], m['outgoing-byte-total']]).to.deep.equal([0, 0, 0, 0, 0, 0]);
    for (const k of ['batch-size-avg', 'batch-size-max', 'request-latency-avg', 'record-queue-time-max', 'records-per-request-avg', 'compression-rate-avg']) expect(m[k], k).to.be.NaN;
    expect([m['buffer-total-bytes'], m['buffer-available-bytes'], m['requests-in-flight'], m['waiting-threads'], m['record-send-rate']]).to.deep.equal([1_048_576, 1_048_576, 0, 0, 0]);
  });

  it('a request: its batch, records, bytes, queue time and latency; rates over at least one whole window', async () => {
    const p = spawnProducer();
    await connected(p);
    const pending = send(p, 4, 100);
    await checkFor(async () => ((await seen()).held === 1 ? true : null));
    const held = await metrics(p);
    expect(held['requests-in-flight']).to.equal(1);
    expect(held['buffer-available-bytes']).to.equal(32 * 1024 * 1024 - 4 * 122);
    clock.advance(7);
    sys.send(broker, { type: 'Release' });
    expect(((await pending) as SendResult).errorCode).to.equal(ErrorCode.NONE);
    const bytes = (await seen()).seen[0]![0]!.bytes;
    const m = await metrics(p);
    expect(m['record-send-total']).to.equal(4);
    expect(m['request-total']).to.equal(1);
    expect(m['response-total']).to.equal(1);
    expect(m['request-latency-avg']).to.equal(7);
    expect(m['request-latency-max']).to.equal(7);
    expect(m['batch-size-avg']).to.equal(bytes);
    expect(m['batch-size-max']).to.equal(bytes);
    expect(m['request-size-avg']).to.equal(bytes);
    expect(m['outgoing-byte-total']).to.equal(bytes);
    expect(m['records-per-request-avg']).to.equal(4);
    // each record: 100 value bytes and 22 of framing, as buffer.memory counts them
    expect(m['record-size-avg']).to.equal(122);
    expect(m['record-size-max']).to.equal(122);
    expect(m['record-queue-time-avg']).to.equal(0);
    expect(m['compression-rate-avg']).to.equal(1);
    expect(m['requests-in-flight']).to.equal(0);
    expect(m['buffer-available-bytes']).to.equal(32 * 1024 * 1024);
    // 7 ms into the first window of two: the rate is over one window and 7 ms, as Kafka counts it
    expect(m['record-send-rate']).to.be.closeTo((4 * 1000) / 1_007, 1e-9);
    expect(m['request-rate']).to.be.closeTo(1000 / 1_007, 1e-9);
    expect(m['outgoing-byte-rate']).to.be.closeTo((bytes * 1000) / 1_007, 1e-9);
    expect(m['record-retry-total'] + m['record-error-total']).to.equal(0);

    // past both windows the averages are NaN again and the rates 0; the totals stay
    clock.advance(2_500);
    const later = await metrics(p);
    expect(later['request-latency-avg']).to.be.NaN;
    expect(later['batch-size-max']).to.be.NaN;
    expect(later['record-send-rate']).to.equal(0);
    expect(later['record-send-total']).to.equal(4);
    expect(later['metadata-age']).to.be.at.least(2.5);
  });

  it('a batch that waited behind another counts its queue time; a retried one its records as retries', async () => {
    const p = spawnProducer();
    await connected(p);
    const first = send(p, 1, 10);
    await checkFor(async () => ((await seen()).held === 1 ? true : null));
    // one request in flight at a time: this batch waits for the first's answer
    const second = send(p, 3, 10);
    await checkFor(async () => (((await sys.ask<ProducerDescription>(p, { type: 'DescribeProducer' }, { timeoutMs: 5_000 })) as ProducerDescription).queuedBatches === 1 ? true : null));
    clock.advance(12);
    sys.send(broker, { type: 'FailNext', errorCode: ErrorCode.NOT_ENOUGH_REPLICAS });
    sys.send(broker, { type: 'Release' });
    // the second goes out, is refused (retriable), goes out again and is held
    await checkFor(async () => ((await seen()).held === 1 ? true : null));
    sys.send(broker, { type: 'Release' });
    expect(((await first) as SendResult).errorCode).to.equal(ErrorCode.NONE);
    expect(((await second) as SendResult).errorCode).to.equal(ErrorCode.NONE);
    const m = await metrics(p);
    expect(m['record-retry-total']).to.equal(3);
    expect(m['record-error-total']).to.equal(0);
    // sent three times: 1, then 3 and 3 again
    expect(m['request-total']).to.equal(3);
    expect(m['record-send-total']).to.equal(7);
    expect(m['record-queue-time-max']).to.equal(12);
    expect(m['record-queue-time-avg']).to.equal((0 + 12 + 12) / 3);
    // the topic's own share: the same records, retries and bytes
    const t = await metrics(p, 't');
    expect([t['record-send-total'], t['record-retry-total'], t['record-error-total']]).to.deep.equal([7, 3, 0]);
    expect(t['byte-total']).to.equal(m['outgoing-byte-total']);
    expect(t['compression-rate']).to.equal(1);
  });

  it('records refused for good count as errors', async () => {
    const p = spawnProducer();
    await connected(p);
    sys.send(broker, { type: 'FailNext', errorCode: ErrorCode.RECORD_LIST_TOO_LARGE });
    const r = (await send(p, 5, 10)) as SendResult;
    expect(r.errorCode).to.equal(ErrorCode.RECORD_LIST_TOO_LARGE);
    const m = await metrics(p);
    expect(m['record-error-total']).to.equal(5);
    expect(m['record-retry-total']).to.equal(0);
    expect((await metrics(p, 't'))['record-error-total']).to.equal(5);
    expect(m['record-error-rate']).to.be.greaterThan(0);
  });

  it('compressed batches: compression-rate-avg is their size over their size before', async () => {
    const p = spawnProducer({ 'compression.type': 'gzip' });
    await connected(p);
    const pending = send(p, 20, 100);
    await checkFor(async () => ((await seen()).held === 1 ? true : null));
    sys.send(broker, { type: 'Release' });
    await pending;
    const m = await metrics(p);
    expect(m['compression-rate-avg']).to.be.greaterThan(0).and.lessThan(0.25);
    expect(m['batch-size-avg']).to.equal((await seen()).seen[0]![0]!.bytes);
  });

  it('metrics.sample.window.ms and metrics.num.samples are checked like every config, 30 s x 2 by default', () => {
    expect(parseProducerConfig({})).to.include({ metricsSampleWindowMs: 30_000, metricsNumSamples: 2 });
    for (const [key, value] of [
      ['metrics.sample.window.ms', 0],
      ['metrics.num.samples', 0],
    ] as const) {
      expect(() => parseProducerConfig({ [key]: value }), key).to.throw(`${key}: `);
    }
  });
});
