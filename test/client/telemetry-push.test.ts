/**
 * samsa's producer and consumer push their metrics (KIP-714) to a real in-process cluster whose
 * brokers have a telemetry receiver (client.telemetry.receiver, the telemetry sink) and a client
 * metrics subscription for samsa's clients: the sink shows each client instance, who it is, and
 * its metrics under KIP-714's names with their values; closing, each makes a terminating push.
 */
import { expect } from 'chai';
import type { BrokerMsg, MetadataResponse } from '../../actors/broker/messages.js';
import type { ProducerDescription } from '../../actors/producer/messages.js';
import { telemetrySink, type TelemetryClient, type TelemetryPoint } from '../../actors/telemetry-sink/sink.js';
import type { EachMessagePayload } from '../../src/client/consumer.js';
import { brokerPath } from '../../src/protocol/cluster.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import type { ActorRef } from '../../src/runtime/types.js';
import { checkFor } from '../helpers/check-for.js';
import { TestCluster, fastFailover } from '../helpers/cluster.js';

const FAST = fastFailover({ 'client.telemetry.receiver': '/telemetry', 'group.initial.rebalance.delay.ms': 0, 'group.min.session.timeout.ms': 100, 'offsets.topic.num.partitions': 3 });
const SUBSCRIPTION = { metrics: 'org.apache.kafka.producer.,org.apache.kafka.consumer.', 'interval.ms': '100', match: 'client_software_name=samsa' };

describe('client: metrics push to the brokers (KIP-714)', function () {
  this.timeout(60_000);
  let c: TestCluster;

  before(async () => {
    c = await TestCluster.start({ brokers: 2, ...FAST });
    for (const id of c.brokerIds()) c.brokerSystem(id).spawn(telemetrySink, { name: 'telemetry', args: undefined });
    await c.client.createTopic('events', 2, 2);
    const admin = c.samsa().admin();
    await admin.connect();
    const [r] = await admin.alterClientMetrics([{ name: 'samsa-clients', set: SUBSCRIPTION }]);
    expect(r!.errorCode).to.equal(ErrorCode.NONE);
    // every broker has the subscription before a client asks for it
    for (const b of c.bootstrap()) {
      const broker: ActorRef<BrokerMsg> = { node: b.node, path: brokerPath(b.brokerId) };
      await checkFor(async () => {
        const md = (await c.system().ask<MetadataResponse>(broker, { type: 'Metadata', topics: [] }, { timeoutMs: 5_000 })) as MetadataResponse;
        return md.metadata?.clientMetrics?.['samsa-clients'] !== undefined;
      }, 10_000, 20);
    }
  });
  after(async () => {
    await c?.stop();
  });

  /** What the brokers' sinks hold of a client instance: its latest description (by its last push). */
  async function described(clientInstanceId: string): Promise<TelemetryClient | null> {
    let latest: TelemetryClient | null = null;
    for (const b of c.bootstrap()) {
      const r = (await c.brokerSystem(b.brokerId).ask({ node: b.node, path: '/telemetry' }, { type: 'DescribeClientTelemetry', clientInstanceId }, { timeoutMs: 5_000 })) as unknown as { clients: TelemetryClient[] };
      for (const x of r.clients) if (!latest || x.lastPushMs > latest.lastPushMs) latest = x;
    }
    return latest;
  }
  const point = (client: TelemetryClient, name: string, attributes: Record<string, string> = {}): TelemetryPoint | undefined =>
    client.points.find((p) => p.name === name && JSON.stringify(p.attributes) === JSON.stringify(attributes));

  it("a producer and a consumer push their metrics; the receiver shows who they are and KIP-714's names with their values; closing, each pushes one last time", async () => {
    const samsa = c.samsa('kip714-app');
    const producer = samsa.producer({ 'client.id': 'kip714-producer', 'linger.ms': 0 });
    await producer.connect();
    await producer.send({ topic: 'events', messages: Array.from({ length: 20 }, (_, i) => ({ key: `k${i}`, value: `v${i}` })) });
    const consumer = samsa.consumer({ groupId: 'kip714-group', 'client.id': 'kip714-consumer', 'session.timeout.ms': 1_500, 'heartbeat.interval.ms': 100, 'fetch.max.wait.ms': 100 });
    const seen: EachMessagePayload[] = [];
    await consumer.connect();
    await consumer.subscribe({ topics: ['events'], fromBeginning: true });
    await consumer.run({ eachMessage: (p) => void seen.push(p) });
    await checkFor(() => seen.length === 20, 20_000, 20);

    // the client instance ids the brokers gave them
    const producerId = await checkFor(async () => ((await c.system().ask<ProducerDescription>(producer.actor!, { type: 'DescribeProducer' })) as ProducerDescription).telemetry?.clientInstanceId, 10_000, 20);
    const consumerId = await checkFor(async () => (await consumer.describe()).telemetry?.clientInstanceId, 10_000, 20);
    expect(producerId).to.not.equal(consumerId);

    const p = await checkFor(async () => {
      const d = await described(producerId);
      return d && point(d, 'org.apache.kafka.producer.record.send.rate')?.value ? d : null;
    }, 10_000, 20);
    expect(p).to.deep.include({ clientId: 'kip714-producer', clientSoftwareName: 'samsa', clientSoftwareVersion: '0.1.0', clientSourceAddress: 'client', principal: 'User:ANONYMOUS', resource: {} });
    expect(point(p, 'org.apache.kafka.producer.record.send.total')).to.deep.include({ kind: 'sum' });
    expect(point(p, 'org.apache.kafka.producer.record.queue.time.avg')).to.deep.include({ kind: 'gauge' });
    expect(point(p, 'org.apache.kafka.producer.topic.record.send.total', { topic: 'events' })).to.deep.include({ kind: 'sum' });
    expect(p.points.every((x) => x.name.startsWith('org.apache.kafka.producer.'))).to.equal(true);

    const k = await checkFor(async () => {
      const d = await described(consumerId);
      return d && point(d, 'org.apache.kafka.consumer.fetch.manager.records.consumed.rate')?.value && point(d, 'org.apache.kafka.consumer.coordinator.assigned.partitions')?.value === 2 ? d : null;
    }, 10_000, 20);
    expect(k).to.deep.include({ clientId: 'kip714-consumer', clientSoftwareName: 'samsa', terminated: false });
    expect(k.resource).to.have.property('group_id', 'kip714-group');
    expect(k.resource['group_member_id']).to.be.a('string').and.not.equal('');
    expect(point(k, 'org.apache.kafka.consumer.fetch.manager.fetch.latency.avg')).to.deep.include({ kind: 'gauge' });
    expect(point(k, 'org.apache.kafka.consumer.coordinator.commit.total')).to.deep.include({ kind: 'sum' });
    expect(point(k, 'org.apache.kafka.consumer.poll.idle.ratio.avg')).to.deep.include({ kind: 'gauge' });
    expect(point(k, 'org.apache.kafka.consumer.fetch.manager.records.consumed.total')).to.deep.include({ kind: 'sum' });

    await consumer.disconnect();
    await producer.disconnect();
    // their last pushes say they were closing
    expect((await described(producerId))?.terminated).to.equal(true);
    expect((await described(consumerId))?.terminated).to.equal(true);
  });
});
