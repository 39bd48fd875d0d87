/**
 * The admin client's metrics push (KIP-714, enable.metrics.push) against a fake broker the test
 * answers, on a fake clock: off by default (as Kafka's admin); on, it asks for its subscription
 * at once with the zero instance id, pushes Kafka's admin metrics (admin-client-metrics and
 * admin-client-node-metrics, every request it made counted) under KIP-714's names at the
 * interval; with no broker id known it fetches metadata first; closing, it makes a terminating
 * push and Close is answered after it, with no timer left. GetClientInstanceId is answered as
 * soon as the subscription brings the id, and REQUEST_TIMED_OUT once its timeout has passed.
 */
import { expect } from 'chai';
import { admin } from '../../../actors/admin/admin.js';
import { AdminConfigError, parseAdminConfig } from '../../../actors/admin/admin-config.js';
import type { AdminMetricsReply, AdminMsg } from '../../../actors/admin/messages.js';
import type { ClientInstanceIdReply } from '../../../src/client/telemetry-loop.js';
import { decodeOtlpMetrics } from '../../../src/kafka/otlp-metrics.js';
import { decompress } from '../../../src/protocol/compression.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { ActorSystem } from '../../../src/runtime/actor-system.js';
import { FakeClock } from '../../../src/runtime/clock.js';
import type { ActorRef } from '../../../src/runtime/types.js';
import { checkFor } from '../../helpers/check-for.js';
import { DAY_MS as DAY, heldMetadataProxy, subscriptionAnswer, TELEMETRY_NODE, telemetryHarness, ZERO_INSTANCE_ID as ZERO, type LoggedTelemetryRequest, type TelemetryWorld } from '../../helpers/fake-telemetry-broker.js';

const ID = 'admin-instance-000000a';

const subscription = (over: Record<string, unknown> = {}) => subscriptionAnswer({ clientInstanceId: ID, subscriptionId: 7, acceptedCompressionTypes: [4, 1], requestedMetrics: ['org.apache.kafka.admin.client.'] }, over);
const pushed = () => ({ type: 'PushTelemetryResponse', errorCode: ErrorCode.NONE, errorMessage: null });

describe('actors/admin: metrics push (KIP-714)', function () {
  this.timeout(20_000);
  const h = telemetryHarness();
  let clock: FakeClock;
  let sys: ActorSystem;
  let world: TelemetryWorld;
  let n = 0;
  beforeEach(() => {
    ({ clock, sys, world } = h);
  });

  const start = (config: Record<string, unknown> = {}, bootstrap = [{ brokerId: 1, node: TELEMETRY_NODE }]): ActorRef<AdminMsg> =>
    sys.spawn(admin, { name: `a${++n}`, args: { bootstrap, config: { 'client.id': 'ops-admin', 'request.timeout.ms': 10_000, 'enable.metrics.push': true, ...config }, random: () => 0.5 } });
  /** GetClientInstanceId with the timeout given (0: what the admin knows now). */
  const instanceId = async (a: ActorRef<AdminMsg>, timeoutMs = 0) => (await sys.ask<ClientInstanceIdReply>(a, { type: 'GetClientInstanceId', timeoutMs })) as ClientInstanceIdReply;
  /** Answers and waits for the admin to have taken the answer (before the clock moves on). */
  const answered = async (a: ActorRef<AdminMsg>, r: LoggedTelemetryRequest, reply: Record<string, unknown>) => {
    h.answer(r, reply);
    await checkFor(async () => !(await instanceId(a)).telemetry?.endsWith('InProgress'), 5_000, 1);
  };
  const points = (r: LoggedTelemetryRequest) => {
    if (r.msg.type !== 'PushTelemetry') throw new Error(`not a push: ${r.msg.type}`);
    const d = decodeOtlpMetrics(decompress(r.msg.compressionType, r.msg.metrics));
    return { resource: d.resource, byName: new Map(d.metrics.map((m) => [m.name, m])) };
  };

  it("enable.metrics.push is false by default, as Kafka's admin: no telemetry request, GetClientInstanceId says there is no push loop", async () => {
    const a = sys.spawn(admin, { name: 'quiet', args: { bootstrap: [{ brokerId: 1, node: TELEMETRY_NODE }] } });
    await clock.advanceAsync(DAY);
    expect(world.requests).to.have.length(0);
    expect(await instanceId(a, 1_000)).to.deep.equal({ type: 'ClientInstanceId', errorCode: ErrorCode.NONE, clientInstanceId: null, telemetry: null });
    expect(clock.pending()).to.equal(0);
    expect(parseAdminConfig({}).enableMetricsPush).to.equal(false);
    expect(parseAdminConfig({ 'enable.metrics.push': 'true' }).enableMetricsPush).to.equal(true);
    expect(() => parseAdminConfig({ 'enable.metrics.push': 'yes' })).to.throw(AdminConfigError, /^enable\.metrics\.push: must be true or false, got "yes"$/);
    expect(() => parseAdminConfig({ 'linger.ms': 5 })).to.throw(AdminConfigError, /^linger\.ms: unknown admin config key/);
  });

  it("asks for its subscription at once, then pushes Kafka's admin metrics under KIP-714's names at the interval, every request it made counted", async () => {
    const a = start();
    const sub = await h.request(0);
    expect(sub.msg).to.deep.equal({ type: 'GetTelemetrySubscriptions', clientInstanceId: ZERO, clientId: 'ops-admin', clientSoftwareName: 'samsa', clientSoftwareVersion: '0.1.0' });
    await answered(a, sub, subscription());
    // an operation: one Metadata request to the broker
    expect(await sys.ask(a, { type: 'FetchTopicMetadata', topics: null })).to.deep.include({ type: 'TopicMetadata', errorCode: ErrorCode.NONE });
    // the first push after the interval times the jitter (1.0 with random 0.5)
    await clock.advanceAsync(999);
    expect(world.requests).to.have.length(1);
    await clock.advanceAsync(1);
    const push = await h.request(1);
    expect(push.msg).to.deep.include({ type: 'PushTelemetry', clientInstanceId: ID, subscriptionId: 7, terminating: false, compressionType: 4, clientId: 'ops-admin' });
    const { resource, byName } = points(push);
    expect(resource).to.deep.equal({});
    expect([...byName.keys()].sort()).to.deep.equal([
      'org.apache.kafka.admin.client.node.request.latency.avg',
      'org.apache.kafka.admin.client.node.request.latency.max',
      'org.apache.kafka.admin.client.node.request.rate',
      'org.apache.kafka.admin.client.node.request.total',
      'org.apache.kafka.admin.client.node.response.rate',
      'org.apache.kafka.admin.client.node.response.total',
      'org.apache.kafka.admin.client.request.rate',
      'org.apache.kafka.admin.client.request.total',
      'org.apache.kafka.admin.client.response.rate',
      'org.apache.kafka.admin.client.response.total',
    ]);
    // the subscription request and the Metadata request, both answered (the push itself is counted once it goes)
    const total = byName.get('org.apache.kafka.admin.client.request.total')!;
    expect([total.kind, total.temporality, total.monotonic, total.points.map((p) => p.value)]).to.deep.equal(['sum', 'delta', true, [2]]);
    expect(byName.get('org.apache.kafka.admin.client.response.total')!.points.map((p) => p.value)).to.deep.equal([2]);
    expect(byName.get('org.apache.kafka.admin.client.node.request.total')!.points.map((p) => [p.attributes, p.value])).to.deep.equal([[{ node_id: `node-${TELEMETRY_NODE}` }, 2]]);
    expect(byName.get('org.apache.kafka.admin.client.node.request.latency.max')!.kind).to.equal('gauge');
    await answered(a, push, pushed());
    // the admin's own metrics say the same, with Kafka's groups and tags
    const metrics = ((await sys.ask<AdminMetricsReply>(a, { type: 'Metrics' })) as AdminMetricsReply).metrics;
    expect(metrics.find((m) => m.group === 'admin-client-metrics' && m.name === 'request-total')).to.deep.include({ tags: { 'client-id': 'ops-admin' }, value: 3 });
    expect(metrics.find((m) => m.group === 'admin-client-node-metrics' && m.name === 'response-total')).to.deep.include({ tags: { 'client-id': 'ops-admin', 'node-id': `node-${TELEMETRY_NODE}` }, value: 3 });
    // the next a push interval after the answer: what grew since (the push)
    await clock.advanceAsync(1_000);
    expect(points(await h.request(2)).byName.get('org.apache.kafka.admin.client.request.total')!.points.map((p) => p.value)).to.deep.equal([1]);
  });

  it('knowing no broker by id, it fetches the metadata before its first request', async () => {
    const proxy = sys.spawn(heldMetadataProxy, { name: 'metadata', args: undefined });
    sys.send(proxy, { type: 'Release' });
    start({}, [{ node: TELEMETRY_NODE } as { brokerId: number; node: string }]);
    expect((await h.request(0)).msg).to.deep.include({ type: 'GetTelemetrySubscriptions', clientInstanceId: ZERO });
  });

  it('closing, makes a terminating push at once; Close is answered after it, and no timer is left', async () => {
    const a = start();
    await answered(a, await h.request(0), subscription({ pushIntervalMs: 60_000 }));
    let closed = false;
    const close = sys.ask(a, { type: 'Close' }).then((r) => {
      closed = true;
      return r;
    });
    const last = await h.request(1);
    expect(last.msg).to.deep.include({ type: 'PushTelemetry', terminating: true, subscriptionId: 7 });
    await clock.advanceAsync(0);
    expect(closed).to.equal(false);
    h.answer(last, pushed());
    expect(await close).to.deep.equal({ type: 'Closed', errorCode: ErrorCode.NONE });
    expect((await instanceId(a)).telemetry).to.equal('Terminated');
    expect(clock.pending()).to.equal(0);
    await clock.advanceAsync(DAY);
    expect(world.requests).to.have.length(2);
  });

  it('GetClientInstanceId waits for the subscription and is answered as it comes; one not answered in time gets REQUEST_TIMED_OUT at its deadline', async () => {
    const a = start();
    const sub = await h.request(0);
    // timeout 0: what is known now (nothing yet)
    expect(await instanceId(a)).to.deep.include({ errorCode: ErrorCode.REQUEST_TIMED_OUT, clientInstanceId: null, telemetry: 'SubscriptionInProgress' });
    let early: ClientInstanceIdReply | null = null;
    let late: ClientInstanceIdReply | null = null;
    void instanceId(a, 1_000).then((r) => (early = r));
    void instanceId(a, 60_000).then((r) => (late = r));
    await clock.advanceAsync(999);
    expect([early, late]).to.deep.equal([null, null]);
    await clock.advanceAsync(1);
    await checkFor(() => early, 5_000, 1);
    expect(early).to.deep.include({ errorCode: ErrorCode.REQUEST_TIMED_OUT, clientInstanceId: null });
    expect(late).to.equal(null);
    const before = clock.now();
    h.answer(sub, subscription());
    await checkFor(() => late, 5_000, 1);
    expect(late).to.deep.include({ errorCode: ErrorCode.NONE, clientInstanceId: ID, telemetry: 'PushNeeded' });
    expect(clock.now()).to.equal(before);
    // only the push timer is left: the waiters' one went with them
    expect(clock.pending()).to.equal(1);
  });
});
