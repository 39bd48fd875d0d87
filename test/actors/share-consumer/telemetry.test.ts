/**
 * The share consumer's metrics push (KIP-714, enable.metrics.push) against a fake broker the test
 * answers, on a fake clock: its subscription asked for at once, its share consumer metrics pushed
 * under KIP-714's names with the labels Kafka's share consumer gives (group_id, group_member_id
 * from the start, client_rack), the terminating push when it closes (ShareConsumerDone answered
 * after it; an Unsubscribe makes none), and nothing with enable.metrics.push false.
 */
import { expect } from 'chai';
import { shareConsumer } from '../../../actors/share-consumer/share-consumer.js';
import { parseShareConsumerConfig, ShareConsumerConfigError } from '../../../actors/share-consumer/share-consumer-config.js';
import type { ShareConsumerDescription, ShareConsumerMsg } from '../../../actors/share-consumer/messages.js';
import { decodeOtlpMetrics } from '../../../src/kafka/otlp-metrics.js';
import { decompress } from '../../../src/protocol/compression.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { ActorSystem } from '../../../src/runtime/actor-system.js';
import { FakeClock } from '../../../src/runtime/clock.js';
import type { ActorRef, Message } from '../../../src/runtime/types.js';
import { checkFor } from '../../helpers/check-for.js';
import { DAY_MS as DAY, subscriptionAnswer, TELEMETRY_NODE, telemetryHarness, ZERO_INSTANCE_ID as ZERO, type LoggedTelemetryRequest, type TelemetryHarness, type TelemetryWorld } from '../../helpers/fake-telemetry-broker.js';

const ID = 'share-instance-0000000';
const MEMBER = 'member-0000000000000001';

const subscription = (over: Record<string, unknown> = {}) => subscriptionAnswer({ clientInstanceId: ID, subscriptionId: 9, acceptedCompressionTypes: [1], requestedMetrics: ['*'] }, over);
const pushed = { type: 'PushTelemetryResponse', errorCode: 0, errorMessage: null } as unknown as Message;

describe('actors/share-consumer: metrics push (KIP-714)', function () {
  this.timeout(20_000);
  const h = telemetryHarness();
  let clock: FakeClock;
  let sys: ActorSystem;
  let world: TelemetryWorld;
  let broker: TelemetryHarness['broker'];
  beforeEach(() => {
    ({ clock, sys, world, broker } = h);
  });

  const start = (config: Record<string, unknown> = {}): ActorRef<ShareConsumerMsg> =>
    sys.spawn(shareConsumer, { name: 'sc', args: { bootstrap: [{ brokerId: 1, node: TELEMETRY_NODE }], memberId: MEMBER, config: { 'group.id': 'mailers', 'client.id': 'share-1', ...config } } });
  const request = h.request;
  const describe = async (c: ActorRef<ShareConsumerMsg>) => (await sys.ask<ShareConsumerDescription>(c, { type: 'DescribeShareConsumer' })) as ShareConsumerDescription;
  const answered = async (c: ActorRef<ShareConsumerMsg>, r: LoggedTelemetryRequest, reply: Record<string, unknown>) => {
    h.answer(r, reply);
    await checkFor(async () => !(await describe(c)).telemetry?.state.endsWith('InProgress'), 5_000, 1);
  };

  it("pushes its share consumer metrics under KIP-714's names, with group_id, group_member_id and client_rack as its resource", async () => {
    const c = start({ 'client.rack': 'rack-2' });
    const sub = await request(0);
    expect(sub.msg).to.deep.equal({ type: 'GetTelemetrySubscriptions', clientInstanceId: ZERO, clientId: 'share-1', clientSoftwareName: 'samsa', clientSoftwareVersion: '0.1.0' });
    await answered(c, sub, subscription());
    expect((await describe(c)).telemetry).to.deep.include({ state: 'PushNeeded', clientInstanceId: ID, subscriptionId: 9, pushIntervalMs: 1_000 });
    // the first push: within the interval times 0.5 to 1.5 (jitter)
    await clock.advanceAsync(1_500);
    const push = await request(1);
    if (push.msg.type !== 'PushTelemetry') throw new Error('a push was expected');
    expect([push.msg.subscriptionId, push.msg.compressionType, push.msg.terminating, push.msg.clientInstanceId]).to.deep.equal([9, 1, false, ID]);
    const d = decodeOtlpMetrics(decompress(push.msg.compressionType, push.msg.metrics));
    expect(d.resource).to.deep.equal({ group_id: 'mailers', group_member_id: MEMBER, client_rack: 'rack-2' });
    const names = d.metrics.map((m) => m.name);
    for (const name of names) expect(name.startsWith('org.apache.kafka.consumer.share.'), name).to.equal(true);
    expect(names).to.include.members([
      'org.apache.kafka.consumer.share.fetch.manager.records.consumed.total',
      'org.apache.kafka.consumer.share.fetch.manager.acknowledgements.send.total',
      'org.apache.kafka.consumer.share.coordinator.heartbeat.total',
    ]);
    expect(d.metrics.find((m) => m.name === 'org.apache.kafka.consumer.share.fetch.manager.records.consumed.total')).to.deep.include({ kind: 'sum', temporality: 'delta', monotonic: true });
    // nothing fetched yet: no latency to report (sparse metrics)
    expect(names).to.not.include('org.apache.kafka.consumer.share.fetch.manager.fetch.latency.avg');
    await answered(c, push, pushed as never);
    expect((await describe(c)).telemetry?.pushes).to.equal(1);
  });

  it('closing, makes a terminating push; ShareConsumerDone comes after it, and no timer is left', async () => {
    const c = start();
    await answered(c, await request(0), subscription({ pushIntervalMs: 60_000 }));
    let closed = false;
    const close = sys.ask(c, { type: 'Close', acknowledgements: [] }).then((r) => {
      closed = true;
      return r;
    });
    const last = await request(1);
    expect(last.msg).to.deep.include({ type: 'PushTelemetry', terminating: true, clientInstanceId: ID, subscriptionId: 9 });
    await clock.advanceAsync(0);
    expect(closed).to.equal(false);
    sys.send(broker, { type: 'Answer', token: last.token, reply: pushed });
    expect(await close).to.deep.include({ type: 'ShareConsumerDone', errorCode: ErrorCode.NONE });
    expect(await describe(c)).to.deep.include({ phase: 'Closed' });
    expect((await describe(c)).telemetry?.state).to.equal('Terminated');
    expect(clock.pending()).to.equal(0);
    await clock.advanceAsync(DAY);
    expect(world.requests).to.have.length(2);
  });

  it('an unsubscribe makes no terminating push; the close after it does', async () => {
    const c = start();
    await answered(c, await request(0), subscription({ pushIntervalMs: 60_000 }));
    expect(await sys.ask(c, { type: 'Subscribe', topics: ['t'] })).to.deep.include({ errorCode: ErrorCode.NONE });
    expect(await sys.ask(c, { type: 'Unsubscribe', acknowledgements: [] })).to.deep.include({ type: 'ShareConsumerDone', errorCode: ErrorCode.NONE });
    await clock.advanceAsync(0);
    expect(world.requests).to.have.length(1);
    expect((await describe(c)).telemetry?.state).to.equal('PushNeeded');
    const close = sys.ask(c, { type: 'Close', acknowledgements: [] });
    const last = await request(1);
    expect(last.msg).to.deep.include({ type: 'PushTelemetry', terminating: true });
    sys.send(broker, { type: 'Answer', token: last.token, reply: pushed });
    expect(await close).to.deep.include({ type: 'ShareConsumerDone', errorCode: ErrorCode.NONE });
    expect(clock.pending()).to.equal(0);
  });

  it('closing before any subscription: no terminating push, closed at once', async () => {
    const c = start();
    await request(0);
    expect(await sys.ask(c, { type: 'Close', acknowledgements: [] })).to.deep.include({ type: 'ShareConsumerDone', errorCode: ErrorCode.NONE });
    expect((await describe(c)).telemetry?.state).to.equal('Terminated');
    expect(world.requests).to.have.length(1);
  });

  it('enable.metrics.push false: no telemetry request; a value that is not a boolean is refused by name', async () => {
    const c = start({ 'enable.metrics.push': false });
    await clock.advanceAsync(10_000);
    expect((await describe(c)).telemetry).to.equal(null);
    expect(world.requests).to.have.length(0);
    expect(await sys.ask(c, { type: 'Close', acknowledgements: [] })).to.deep.include({ type: 'ShareConsumerDone' });
    expect(parseShareConsumerConfig({ 'group.id': 'g' }).enableMetricsPush).to.equal(true);
    expect(() => parseShareConsumerConfig({ 'group.id': 'g', 'enable.metrics.push': 1 })).to.throw(ShareConsumerConfigError, /^enable\.metrics\.push: must be true or false, got 1$/);
  });
});
