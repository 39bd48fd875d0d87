/**
 * The broker actor's GetTelemetrySubscriptions and PushTelemetry (KIP-714), what samsa's own
 * clients send: the Kafka listener's checks (ClientTelemetry) and its telemetry receiver, with
 * the client known by its node; a broker without a receiver answers UNSUPPORTED_VERSION.
 */
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import type { BrokerMsg, MetadataResponse, PushTelemetryReply, TelemetrySubscriptionsReply } from '../../../actors/broker/messages.js';
import { telemetrySink, type TelemetryClient } from '../../../actors/telemetry-sink/sink.js';
import { brokerPath } from '../../../src/protocol/cluster.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import type { ActorRef, Failure } from '../../../src/runtime/types.js';
import { checkFor } from '../../helpers/check-for.js';
import { TestCluster } from '../../helpers/cluster.js';
import { otlpMetrics } from '../../helpers/otlp.js';

const ZERO = 'AAAAAAAAAAAAAAAAAAAAAA';
const WHO = { clientId: 'app-1', clientSoftwareName: 'samsa', clientSoftwareVersion: '0.1.0' };

describe('actors/broker: telemetry requests of samsa clients (KIP-714)', function () {
  this.timeout(60_000);

  describe('with a telemetry receiver', () => {
    let c: TestCluster;
    let broker: ActorRef<BrokerMsg>;
    const ask = <R>(msg: BrokerMsg) => c.system().ask<R & { type: string }>(broker, msg, { timeoutMs: 10_000 }) as Promise<R | Failure>;

    before(async () => {
      c = await TestCluster.start({ brokers: 1, brokerConfig: { 'client.telemetry.receiver': '/telemetry' } });
      c.brokerSystem(1).spawn(telemetrySink, { name: 'telemetry', args: undefined });
      broker = { node: c.bootstrap()[0]!.node, path: brokerPath(1) };
      const admin = c.samsa().admin();
      await admin.connect();
      const [r] = await admin.alterClientMetrics([{ name: 'samsa-apps', set: { metrics: '*', 'interval.ms': '100', match: 'client_software_name=samsa' } }]);
      expect(r!.errorCode).to.equal(ErrorCode.NONE);
      // the broker has the subscription once its metadata does
      await checkFor(async () => {
        const md = await ask<MetadataResponse>({ type: 'Metadata', topics: [] });
        return 'metadata' in md && md.metadata.clientMetrics?.['samsa-apps'] !== undefined;
      }, 10_000, 20);
    });
    after(async () => {
      await c?.stop();
    });

    it('gives a new client instance its subscription, takes its pushes to the receiver with who it is, and checks them as the Kafka listener does', async () => {
      const sub = (await ask<TelemetrySubscriptionsReply>({ type: 'GetTelemetrySubscriptions', clientInstanceId: ZERO, ...WHO })) as TelemetrySubscriptionsReply;
      expect(sub.type).to.equal('GetTelemetrySubscriptionsResponse');
      expect(sub.errorCode).to.equal(ErrorCode.NONE);
      expect(sub.clientInstanceId).to.not.equal(ZERO);
      expect([sub.pushIntervalMs, sub.requestedMetrics, sub.deltaTemporality, sub.acceptedCompressionTypes]).to.deep.equal([100, [''], true, [4, 3, 1, 2]]);

      const metrics = otlpMetrics({ group_id: 'g' }, [{ name: 'org.apache.kafka.producer.record.send.total', sum: [{ value: 12 }], monotonic: true }]);
      const push = (subscriptionId: number, extra: Partial<Extract<BrokerMsg, { type: 'PushTelemetry' }>> = {}) =>
        ask<PushTelemetryReply>({ type: 'PushTelemetry', clientInstanceId: sub.clientInstanceId, subscriptionId, terminating: false, compressionType: 1, metrics: gzipSync(metrics), ...WHO, ...extra });
      expect(await push(sub.subscriptionId)).to.deep.equal({ type: 'PushTelemetryResponse', errorCode: ErrorCode.NONE, errorMessage: null });

      const described = (await c.brokerSystem(1).ask(
        { node: c.bootstrap()[0]!.node, path: '/telemetry' },
        { type: 'DescribeClientTelemetry', clientInstanceId: sub.clientInstanceId },
        { timeoutMs: 5_000 },
      )) as unknown as { clients: TelemetryClient[] };
      const client = described.clients[0]!;
      expect(client).to.deep.include({ clientInstanceId: sub.clientInstanceId, clientId: 'app-1', clientSoftwareName: 'samsa', clientSoftwareVersion: '0.1.0', clientSourceAddress: 'client', principal: 'User:ANONYMOUS', brokerId: 1, resource: { group_id: 'g' } });
      expect(client.points.map((p) => [p.name, p.value])).to.deep.equal([['org.apache.kafka.producer.record.send.total', 12]]);

      // the same checks as a Kafka client's: another subscription id, too early, after a terminating push
      await new Promise((r) => setTimeout(r, 110));
      expect((await push(sub.subscriptionId + 1)) as PushTelemetryReply).to.deep.include({ errorCode: ErrorCode.UNKNOWN_SUBSCRIPTION_ID });
      const again = (await ask<TelemetrySubscriptionsReply>({ type: 'GetTelemetrySubscriptions', clientInstanceId: sub.clientInstanceId, ...WHO })) as TelemetrySubscriptionsReply;
      expect([again.errorCode, again.clientInstanceId, again.subscriptionId]).to.deep.equal([ErrorCode.NONE, sub.clientInstanceId, sub.subscriptionId]);
      expect((await push(sub.subscriptionId, { terminating: true })) as PushTelemetryReply).to.deep.include({ errorCode: ErrorCode.NONE });
      expect((await push(sub.subscriptionId)) as PushTelemetryReply).to.deep.include({ errorCode: ErrorCode.INVALID_REQUEST });
    });

    it('a client no subscription matches gets none, and a push that is not well formed is refused at the boundary', async () => {
      const sub = (await ask<TelemetrySubscriptionsReply>({ type: 'GetTelemetrySubscriptions', clientInstanceId: ZERO, clientId: 'java-app', clientSoftwareName: 'apache-kafka-java', clientSoftwareVersion: '3.9.0' })) as TelemetrySubscriptionsReply;
      expect([sub.errorCode, sub.requestedMetrics, sub.pushIntervalMs]).to.deep.equal([ErrorCode.NONE, [], 300_000]);
      const bad = (await ask({ type: 'PushTelemetry', clientInstanceId: sub.clientInstanceId, subscriptionId: 'x', terminating: false, compressionType: 0, metrics: new Uint8Array(0) } as never)) as Failure;
      expect([bad.type, bad.reason]).to.deep.equal(['Failure', 'invalid-message']);
    });
  });

  it('a broker without a telemetry receiver answers UNSUPPORTED_VERSION to both', async () => {
    const c = await TestCluster.start({ brokers: 1 });
    try {
      const broker: ActorRef<BrokerMsg> = { node: c.bootstrap()[0]!.node, path: brokerPath(1) };
      const sub = (await c.system().ask(broker, { type: 'GetTelemetrySubscriptions', clientInstanceId: ZERO, ...WHO }, { timeoutMs: 5_000 })) as TelemetrySubscriptionsReply;
      expect([sub.type, sub.errorCode, sub.clientInstanceId, sub.requestedMetrics]).to.deep.equal(['GetTelemetrySubscriptionsResponse', ErrorCode.UNSUPPORTED_VERSION, ZERO, []]);
      const push = (await c.system().ask(broker, { type: 'PushTelemetry', clientInstanceId: 'x', subscriptionId: 1, terminating: false, compressionType: 0, metrics: new Uint8Array(0), ...WHO }, { timeoutMs: 5_000 })) as PushTelemetryReply;
      expect([push.type, push.errorCode]).to.deep.equal(['PushTelemetryResponse', ErrorCode.UNSUPPORTED_VERSION]);
    } finally {
      await c.stop();
    }
  });
});
