/**
 * The producer's metrics push (KIP-714, enable.metrics.push) against a fake broker the test
 * answers, on a fake clock: it asks for its subscription at once with the zero instance id,
 * pushes its producer metrics under KIP-714's names at the interval (the first one jittered),
 * compressed as the broker prefers; asks again at once on UNKNOWN_SUBSCRIPTION_ID; pushes nothing
 * when nothing is asked for; makes a terminating push when it closes (Close answered after it);
 * stops for good on UNSUPPORTED_VERSION (no receiver) or a broker that does not take the request;
 * tries again after 5 minutes when a broker does not answer; and sends nothing with
 * enable.metrics.push false. Its timer is gone once telemetry is.
 */
import { expect } from 'chai';
import type { ProducerDescription, ProducerMsg } from '../../../actors/producer/messages.js';
import { producer } from '../../../actors/producer/producer.js';
import { parseProducerConfig, ProducerConfigError } from '../../../actors/producer/producer-config.js';
import { decodeOtlpMetrics } from '../../../src/kafka/otlp-metrics.js';
import { decompress } from '../../../src/protocol/compression.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { ActorSystem } from '../../../src/runtime/actor-system.js';
import { FakeClock } from '../../../src/runtime/clock.js';
import type { ActorRef } from '../../../src/runtime/types.js';
import { checkFor } from '../../helpers/check-for.js';
import { DAY_MS as DAY, heldMetadataProxy, olderBroker, subscriptionAnswer, TELEMETRY_NODE, telemetryHarness, ZERO_INSTANCE_ID as ZERO, type LoggedTelemetryRequest, type TelemetryHarness, type TelemetryWorld } from '../../helpers/fake-telemetry-broker.js';

const ID = 'producer-instance-0000';

const subscription = (over: Record<string, unknown> = {}) => subscriptionAnswer({ clientInstanceId: ID, subscriptionId: 41, acceptedCompressionTypes: [4, 3, 1, 2], requestedMetrics: ['org.apache.kafka.producer.'] }, over);
const pushed = (errorCode: number = ErrorCode.NONE) => ({ type: 'PushTelemetryResponse', errorCode, errorMessage: null });

describe('actors/producer: metrics push (KIP-714)', function () {
  this.timeout(20_000);
  const h = telemetryHarness();
  let clock: FakeClock;
  let sys: ActorSystem;
  let world: TelemetryWorld;
  let broker: TelemetryHarness['broker'];
  let n = 0;
  beforeEach(() => {
    ({ clock, sys, world, broker } = h);
  });

  const start = (config: Record<string, unknown> = {}): ActorRef<ProducerMsg> =>
    sys.spawn(producer, {
      name: `p${++n}`,
      args: { bootstrap: [{ brokerId: 1, node: TELEMETRY_NODE }], config: { 'client.id': 'orders-app', 'linger.ms': 0, 'metadata.max.age.ms': 0, 'request.timeout.ms': 10_000, ...config }, random: () => 0.5 },
    });
  const request = h.request;
  const answer = h.answer;
  /** Answers and waits for the producer to have taken the answer (before the clock moves on). */
  const answered = async (p: ActorRef<ProducerMsg>, r: LoggedTelemetryRequest, reply: Record<string, unknown>) => {
    answer(r, reply);
    await checkFor(async () => !(await describe(p)).telemetry?.state.endsWith('InProgress'), 5_000, 1);
  };
  /** Lets the actors run without moving the clock. */
  const settle = () => clock.advanceAsync(0);
  const describe = async (p: ActorRef<ProducerMsg>) => (await sys.ask<ProducerDescription>(p, { type: 'DescribeProducer' })) as ProducerDescription;
  const points = (r: LoggedTelemetryRequest) => {
    if (r.msg.type !== 'PushTelemetry') throw new Error(`not a push: ${r.msg.type}`);
    const d = decodeOtlpMetrics(decompress(r.msg.compressionType, r.msg.metrics));
    return { resource: d.resource, byName: new Map(d.metrics.map((m) => [m.name, m])) };
  };

  it('asks for its subscription at once with the zero instance id, then pushes its metrics at the interval, under KIP-714 names, zstd as the broker prefers', async () => {
    const p = start();
    const sub = await request(0);
    expect(sub.msg).to.deep.equal({ type: 'GetTelemetrySubscriptions', clientInstanceId: ZERO, clientId: 'orders-app', clientSoftwareName: 'samsa', clientSoftwareVersion: '0.1.0' });
    await answered(p, sub, subscription());
    const sent = await sys.ask(p, { type: 'Send', topics: [{ topic: 't', messages: [{ value: Buffer.from('a') }, { value: Buffer.from('b') }, { value: Buffer.from('c') }] }] });
    expect(sent).to.deep.include({ errorCode: ErrorCode.NONE });
    // the first push: after the interval times the jitter (1.0 with random 0.5)
    await clock.advanceAsync(999);
    expect(world.requests).to.have.length(1);
    await clock.advanceAsync(1);
    const push = await request(1);
    expect(push.msg).to.deep.include({ type: 'PushTelemetry', clientInstanceId: ID, subscriptionId: 41, terminating: false, compressionType: 4, clientId: 'orders-app' });
    const first = points(push);
    expect(first.resource).to.deep.equal({});
    for (const name of first.byName.keys()) expect(name.startsWith('org.apache.kafka.producer.')).to.equal(true, name);
    const sendTotal = first.byName.get('org.apache.kafka.producer.record.send.total')!;
    expect([sendTotal.kind, sendTotal.temporality, sendTotal.monotonic, sendTotal.points.map((x) => x.value)]).to.deep.equal(['sum', 'delta', true, [3]]);
    expect(first.byName.get('org.apache.kafka.producer.topic.record.send.total')!.points.map((x) => [x.attributes, x.value])).to.deep.equal([[{ topic: 't' }, 3]]);
    expect(first.byName.get('org.apache.kafka.producer.record.queue.time.avg')!.kind).to.equal('gauge');
    await answered(p, push, pushed());
    expect((await describe(p)).telemetry).to.deep.equal({ state: 'PushNeeded', clientInstanceId: ID, subscriptionId: 41, pushIntervalMs: 1_000, pushes: 1 });
    // the next a push interval after the answer: what was sent since (nothing)
    await clock.advanceAsync(999);
    expect(world.requests).to.have.length(2);
    await clock.advanceAsync(1);
    expect(points(await request(2)).byName.get('org.apache.kafka.producer.record.send.total')!.points.map((x) => x.value)).to.deep.equal([0]);
  });

  it('asks again at once, with its instance id, when a push is refused UNKNOWN_SUBSCRIPTION_ID (the subscriptions changed)', async () => {
    const p = start();
    await answered(p, await request(0), subscription());
    await clock.advanceAsync(1_000);
    answer(await request(1), pushed(ErrorCode.UNKNOWN_SUBSCRIPTION_ID));
    const again = await request(2);
    expect(again.msg).to.deep.include({ type: 'GetTelemetrySubscriptions', clientInstanceId: ID });
    await answered(p, again, subscription({ subscriptionId: 42, requestedMetrics: ['org.apache.kafka.producer.record.send.'] }));
    await clock.advanceAsync(1_000);
    const push = await request(3);
    expect(push.msg).to.deep.include({ subscriptionId: 42 });
    expect([...points(push).byName.keys()].sort()).to.deep.equal(['org.apache.kafka.producer.record.send.rate', 'org.apache.kafka.producer.record.send.total']);
  });

  it('pushes nothing while no metrics are asked for; asks again after the interval', async () => {
    const p = start();
    await answered(p, await request(0), subscription({ requestedMetrics: [], pushIntervalMs: 5_000 }));
    await clock.advanceAsync(4_999);
    expect(world.requests).to.have.length(1);
    await clock.advanceAsync(1);
    expect((await request(1)).msg).to.deep.include({ type: 'GetTelemetrySubscriptions', clientInstanceId: ID });
  });

  it('closing, makes a terminating push at once; Close is answered after it, and no telemetry timer is left', async () => {
    const p = start();
    await answered(p, await request(0), subscription({ pushIntervalMs: 60_000 }));
    let closed = false;
    const close = sys.ask(p, { type: 'Close' }).then((r) => {
      closed = true;
      return r;
    });
    const last = await request(1);
    expect(last.msg).to.deep.include({ type: 'PushTelemetry', terminating: true, subscriptionId: 41 });
    await settle();
    expect(closed).to.equal(false);
    answer(last, pushed());
    expect(await close).to.deep.include({ type: 'Flushed' });
    expect((await describe(p)).telemetry?.state).to.equal('Terminated');
    expect(clock.pending()).to.equal(0);
    await clock.advanceAsync(DAY);
    expect(world.requests).to.have.length(2);
  });

  it('a broker without a telemetry receiver (UNSUPPORTED_VERSION): nothing more is sent, close makes no push', async () => {
    const p = start();
    await answered(p, await request(0), subscription({ errorCode: ErrorCode.UNSUPPORTED_VERSION, requestedMetrics: [], pushIntervalMs: 0, clientInstanceId: ZERO }));
    expect((await describe(p)).telemetry?.state).to.equal('Disabled');
    expect(clock.pending()).to.equal(0);
    await clock.advanceAsync(DAY);
    expect(await sys.ask(p, { type: 'Close' })).to.deep.include({ type: 'Flushed' });
    expect(world.requests).to.have.length(1);
  });

  it('a broker that does not take telemetry requests at all: one ask, then nothing', async () => {
    await sys.stopActor(broker);
    sys.spawn(olderBroker, { name: 'broker-1', args: undefined });
    const p = start();
    await checkFor(async () => (await describe(p)).telemetry?.state === 'Disabled', 5_000, 1);
    expect(clock.pending()).to.equal(0);
  });

  it('a broker that does not answer: the ask times out after request.timeout.ms, then it asks again 5 minutes later', async () => {
    const p = start();
    await request(0);
    await clock.advanceAsync(10_000);
    await checkFor(async () => (await describe(p)).telemetry?.state === 'SubscriptionNeeded', 5_000, 1);
    await clock.advanceAsync(5 * 60_000 - 1);
    expect(world.requests).to.have.length(1);
    await clock.advanceAsync(1);
    expect((await request(1)).msg).to.deep.include({ type: 'GetTelemetrySubscriptions', clientInstanceId: ZERO });
  });

  it('asks only a broker itself, never a metadata proxy: with none known yet it waits for its metadata', async () => {
    const proxy = sys.spawn(heldMetadataProxy, { name: 'metadata', args: undefined });
    const p = sys.spawn(producer, { name: 'via-proxy', args: { bootstrap: [{ node: TELEMETRY_NODE }], config: { 'metadata.max.age.ms': 0 } } });
    await clock.advanceAsync(5_000);
    expect(world.requests).to.have.length(0);
    expect((await describe(p)).telemetry?.state).to.equal('SubscriptionNeeded');
    sys.send(proxy, { type: 'Release' });
    await clock.advanceAsync(10_000);
    expect((await request(0)).msg).to.deep.include({ type: 'GetTelemetrySubscriptions', clientInstanceId: ZERO });
  });

  it('enable.metrics.push false: no telemetry request; a value that is not a boolean is refused by name', async () => {
    const p = start({ 'enable.metrics.push': 'false' });
    await clock.advanceAsync(DAY);
    expect((await describe(p)).telemetry).to.equal(null);
    expect(world.requests).to.have.length(0);
    expect(parseProducerConfig({}).enableMetricsPush).to.equal(true);
    expect(() => parseProducerConfig({ 'enable.metrics.push': 'yes' })).to.throw(ProducerConfigError, /^enable\.metrics\.push: must be true or false, got "yes"$/);
  });

  it('a transactional producer names its transactional_id in the resource', async () => {
    const p = start({ 'transactional.id': 'tx-9' });
    await answered(p, await request(0), subscription());
    await clock.advanceAsync(1_000);
    expect(points(await request(1)).resource).to.deep.equal({ transactional_id: 'tx-9' });
  });
});
