/**
 * The telemetry receiver samsa ships (actors/telemetry-sink): each push's OTLP metrics read and
 * the latest point of every series kept per client instance, who the client is with it; a push
 * that is not OTLP refused with INVALID_RECORD; the clients kept bounded; and, placed as a
 * broker's client.telemetry.receiver, what a client pushes over the Kafka protocol is there.
 */
import { expect } from 'chai';
import { telemetrySink, type TelemetryClient } from '../../actors/telemetry-sink/sink.js';
import type { ClientTelemetryPush } from '../../src/kafka/client-telemetry.js';
import { ApiKeys } from '../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ActorSystem } from '../../src/runtime/actor-system.js';
import { FakeClock } from '../../src/runtime/clock.js';
import type { ActorRef, Message } from '../../src/runtime/types.js';
import { startKafkaCluster } from '../helpers/kafka-cluster.js';
import { otlpMetrics } from '../helpers/otlp.js';
import { KafkaCaller } from '../helpers/raw-kafka.js';

const pushOf = (id: string, metrics: Uint8Array, extra: Partial<ClientTelemetryPush> = {}): ClientTelemetryPush => ({
  type: 'ClientTelemetryPush',
  brokerId: 1,
  clientInstanceId: id,
  clientId: 'app',
  clientSoftwareName: 'apache-kafka-java',
  clientSoftwareVersion: '3.9.0',
  clientSourceAddress: '10.0.0.1',
  clientSourcePort: 40000,
  principal: 'User:ANONYMOUS',
  subscriptionId: 7,
  terminating: false,
  contentType: 'application/x-protobuf',
  metrics,
  ...extra,
});

describe('actors/telemetry-sink', () => {
  let system: ActorSystem;
  let clock: FakeClock;
  let sink: ActorRef<Message>;
  const ask = async <R>(msg: Message): Promise<R> => (await system.ask(sink, msg)) as unknown as R;
  const describeAll = async (clientInstanceId?: string) => (await ask<{ clients: TelemetryClient[] }>({ type: 'DescribeClientTelemetry', ...(clientInstanceId ? { clientInstanceId } : {}) } as Message)).clients;

  beforeEach(() => {
    clock = new FakeClock(5_000);
    system = new ActorSystem({ nodeId: 'sink-test', clock });
    sink = system.spawn(telemetrySink, { name: 'sink', args: { maxClients: 2 } });
  });
  afterEach(async () => {
    await system.stop();
  });

  it('keeps the latest point of every series of a client, with who it is', async () => {
    const first = otlpMetrics({ client_id: 'app' }, [
      { name: 'org.apache.kafka.producer.record.send.total', sum: [{ attributes: { topic: 'a' }, value: 10n }, { attributes: { topic: 'b' }, value: 3n }], monotonic: true },
      { name: 'org.apache.kafka.producer.buffer.available.bytes', gauge: [{ value: 1024 }] },
    ]);
    expect(await ask(pushOf('i-1', first))).to.deep.include({ type: 'ClientTelemetryTaken', errorCode: ErrorCode.NONE });
    clock.advance(1000);
    const second = otlpMetrics({ client_id: 'app' }, [{ name: 'org.apache.kafka.producer.record.send.total', sum: [{ attributes: { topic: 'a' }, value: 25n }], monotonic: true }]);
    await ask(pushOf('i-1', second, { brokerId: 2, terminating: true }));
    const [c] = await describeAll();
    expect(c).to.deep.include({ clientInstanceId: 'i-1', clientId: 'app', clientSoftwareName: 'apache-kafka-java', clientSoftwareVersion: '3.9.0', clientSourceAddress: '10.0.0.1', brokerId: 2, pushes: 2, terminated: true, lastPushMs: 6000, resource: { client_id: 'app' } });
    expect(c!.points.map((p) => [p.name, p.attributes, p.value])).to.deep.equal([
      ['org.apache.kafka.producer.buffer.available.bytes', {}, 1024],
      ['org.apache.kafka.producer.record.send.total', { topic: 'a' }, 25],
      ['org.apache.kafka.producer.record.send.total', { topic: 'b' }, 3],
    ]);
  });

  it('refuses a push that is not OTLP with INVALID_RECORD, keeping nothing of it', async () => {
    const r = await ask<{ errorCode: number; errorMessage: string }>(pushOf('i-1', new Uint8Array([0x0a, 0x7f])));
    expect(r.errorCode).to.equal(ErrorCode.INVALID_RECORD);
    expect(r.errorMessage).to.match(/not OTLP/);
    expect(await describeAll()).to.deep.equal([]);
  });

  it('keeps the clients that pushed last, maxClients of them, and describes one by its instance id', async () => {
    for (const id of ['i-1', 'i-2', 'i-3']) await ask(pushOf(id, otlpMetrics({}, [{ name: 'm', gauge: [{ value: 1 }] }])));
    expect((await describeAll()).map((c) => c.clientInstanceId)).to.deep.equal(['i-2', 'i-3']);
    expect((await describeAll('i-3')).map((c) => c.clientInstanceId)).to.deep.equal(['i-3']);
    expect(await describeAll('i-1')).to.deep.equal([]);
  });

  it('keeps at most maxSeriesPerClient series per client, forgetting those longest without a point', async () => {
    const few = system.spawn(telemetrySink, { name: 'few', args: { maxSeriesPerClient: 2 } });
    const push = (topics: string[]) => system.ask(few, pushOf('i-1', otlpMetrics({}, [{ name: 'm', gauge: topics.map((topic) => ({ attributes: { topic }, value: topics.indexOf(topic) })) }])));
    await push(['a', 'b']);
    await push(['a']);
    await push(['c']);
    const r = (await system.ask(few, { type: 'DescribeClientTelemetry' })) as unknown as { clients: TelemetryClient[] };
    expect(r.clients[0]!.points.map((p) => p.attributes.topic)).to.have.members(['a', 'c']);
  });

  it("takes what a client pushes over the Kafka protocol as a broker's receiver", async function () {
    this.timeout(30_000);
    const c = await startKafkaCluster({ brokers: 1, brokerConfig: { 'client.telemetry.receiver': '/telemetry' } });
    const k = await KafkaCaller.connect(c.bootstrap[0]!, 'kip714-app');
    try {
      const received = c.handle.mainSystem.spawn(telemetrySink, { name: 'telemetry', args: undefined });
      await k.call(ApiKeys.ApiVersions, 3, { clientSoftwareName: 'apache-kafka-java', clientSoftwareVersion: '3.9.0' });
      const sub = await k.call(ApiKeys.GetTelemetrySubscriptions, 0, { clientInstanceId: 'AAAAAAAAAAAAAAAAAAAAAA' });
      const metrics = otlpMetrics({ client_id: 'kip714-app' }, [{ name: 'org.apache.kafka.consumer.fetch.manager.records.consumed.total', sum: [{ value: 99n }], monotonic: true }]);
      expect((await k.call(ApiKeys.PushTelemetry, 0, { clientInstanceId: sub.clientInstanceId, subscriptionId: sub.subscriptionId, terminating: false, compressionType: 0, metrics: Buffer.from(metrics) })).errorCode).to.equal(ErrorCode.NONE);
      const r = (await c.handle.mainSystem.ask(received, { type: 'DescribeClientTelemetry' })) as unknown as { clients: TelemetryClient[] };
      expect(r.clients.map((x) => [x.clientInstanceId, x.clientId, x.points.map((p) => [p.name, p.value])])).to.deep.equal([[sub.clientInstanceId, 'kip714-app', [['org.apache.kafka.consumer.fetch.manager.records.consumed.total', 99]]]]);
      // not OTLP: the broker answers the client INVALID_RECORD, as for a Kafka plugin's exception
      const later = await k.call(ApiKeys.PushTelemetry, 0, { clientInstanceId: sub.clientInstanceId, subscriptionId: sub.subscriptionId, terminating: true, compressionType: 0, metrics: Buffer.from([0x0a, 0x7f]) });
      expect(later.errorCode).to.equal(ErrorCode.INVALID_RECORD);
    } finally {
      k.end();
      await c.stop();
    }
  });
});
