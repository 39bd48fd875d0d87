/**
 * The consumer's metrics push (KIP-714, enable.metrics.push) against a fake broker the test
 * answers, on a fake clock: its subscription asked for at once, its consumer metrics pushed under
 * KIP-714's names with KIP-714's consumer labels as the resource (group_id, group_instance_id,
 * client_rack), the terminating push when it closes (Closed answered after it), and nothing with
 * enable.metrics.push false.
 */
import { expect } from 'chai';
import { consumer } from '../../../actors/consumer/consumer.js';
import { ConsumerConfigError, parseConsumerConfig } from '../../../actors/consumer/consumer-config.js';
import type { ConsumerDescription, ConsumerMsg } from '../../../actors/consumer/messages.js';
import { decodeOtlpMetrics } from '../../../src/kafka/otlp-metrics.js';
import { decompress } from '../../../src/protocol/compression.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { ActorSystem } from '../../../src/runtime/actor-system.js';
import { FakeClock } from '../../../src/runtime/clock.js';
import type { ActorRef, Message } from '../../../src/runtime/types.js';
import { checkFor } from '../../helpers/check-for.js';
import { DAY_MS as DAY, subscriptionAnswer, TELEMETRY_NODE, telemetryHarness, ZERO_INSTANCE_ID as ZERO, type LoggedTelemetryRequest, type TelemetryHarness, type TelemetryWorld } from '../../helpers/fake-telemetry-broker.js';

const ID = 'consumer-instance-0000';

const subscription = (over: Record<string, unknown> = {}) => subscriptionAnswer({ clientInstanceId: ID, subscriptionId: 7, acceptedCompressionTypes: [1], requestedMetrics: ['*'] }, over);

describe('actors/consumer: metrics push (KIP-714)', function () {
  this.timeout(20_000);
  const h = telemetryHarness();
  let clock: FakeClock;
  let sys: ActorSystem;
  let world: TelemetryWorld;
  let broker: TelemetryHarness['broker'];
  beforeEach(() => {
    ({ clock, sys, world, broker } = h);
  });

  const start = (config: Record<string, unknown> = {}): ActorRef<ConsumerMsg> =>
    sys.spawn(consumer, { name: 'c', args: { bootstrap: [{ brokerId: 1, node: TELEMETRY_NODE }], config: { 'group.id': 'mailer', 'client.id': 'mail-1', ...config } } });
  const request = h.request;
  const describe = async (c: ActorRef<ConsumerMsg>) => (await sys.ask<ConsumerDescription>(c, { type: 'DescribeConsumer' })) as ConsumerDescription;
  const answered = async (c: ActorRef<ConsumerMsg>, r: LoggedTelemetryRequest, reply: Record<string, unknown>) => {
    h.answer(r, reply);
    await checkFor(async () => !(await describe(c)).telemetry?.state.endsWith('InProgress'), 5_000, 1);
  };

  it("pushes its consumer metrics under KIP-714's names, with group_id, group_instance_id and client_rack as its resource", async () => {
    const c = start({ 'group.instance.id': 'mailer-a', 'client.rack': 'rack-2' });
    const sub = await request(0);
    expect(sub.msg).to.deep.equal({ type: 'GetTelemetrySubscriptions', clientInstanceId: ZERO, clientId: 'mail-1', clientSoftwareName: 'samsa', clientSoftwareVersion: '0.1.0' });
    await answered(c, sub, subscription());
    // the first push: within the interval times 0.5 to 1.5 (jitter)
    await clock.advanceAsync(1_500);
    const push = await request(1);
    if (push.msg.type !== 'PushTelemetry') throw new Error('a push was expected');
    expect([push.msg.subscriptionId, push.msg.compressionType, push.msg.terminating]).to.deep.equal([7, 1, false]);
    const d = decodeOtlpMetrics(decompress(push.msg.compressionType, push.msg.metrics));
    expect(d.resource).to.deep.equal({ group_id: 'mailer', group_instance_id: 'mailer-a', client_rack: 'rack-2' });
    const names = d.metrics.map((m) => m.name);
    for (const name of names) expect(name.startsWith('org.apache.kafka.consumer.')).to.equal(true, name);
    expect(names).to.include.members(['org.apache.kafka.consumer.fetch.manager.records.consumed.total', 'org.apache.kafka.consumer.coordinator.commit.total', 'org.apache.kafka.consumer.coordinator.assigned.partitions']);
    expect(d.metrics.find((m) => m.name === 'org.apache.kafka.consumer.fetch.manager.records.consumed.total')).to.deep.include({ kind: 'sum', temporality: 'delta', monotonic: true });
    // nothing fetched yet: no latency to report (sparse metrics)
    expect(names).to.not.include('org.apache.kafka.consumer.fetch.manager.fetch.latency.avg');
  });

  it('closing, makes a terminating push; Closed comes after it, and no telemetry timer is left', async () => {
    const c = start();
    await answered(c, await request(0), subscription({ pushIntervalMs: 60_000 }));
    let closed = false;
    const close = sys.ask(c, { type: 'Close' }).then((r) => {
      closed = true;
      return r;
    });
    const last = await request(1);
    expect(last.msg).to.deep.include({ type: 'PushTelemetry', terminating: true, clientInstanceId: ID });
    await clock.advanceAsync(0);
    expect(closed).to.equal(false);
    sys.send(broker, { type: 'Answer', token: last.token, reply: { type: 'PushTelemetryResponse', errorCode: 0, errorMessage: null } as unknown as Message });
    expect(await close).to.deep.include({ type: 'Closed', errorCode: ErrorCode.NONE });
    expect((await describe(c)).telemetry?.state).to.equal('Terminated');
    expect(clock.pending()).to.equal(0);
    await clock.advanceAsync(DAY);
    expect(world.requests).to.have.length(2);
  });

  it('enable.metrics.push false: no telemetry request; a value that is not a boolean is refused by name', async () => {
    const c = start({ 'enable.metrics.push': false });
    await clock.advanceAsync(10_000);
    expect((await describe(c)).telemetry).to.equal(null);
    expect(world.requests).to.have.length(0);
    expect(await sys.ask(c, { type: 'Close' })).to.deep.include({ type: 'Closed' });
    expect(parseConsumerConfig({ 'group.id': 'g' }).enableMetricsPush).to.equal(true);
    expect(() => parseConsumerConfig({ 'group.id': 'g', 'enable.metrics.push': 1 })).to.throw(ConsumerConfigError, /^enable\.metrics\.push: must be true or false, got 1$/);
  });
});
