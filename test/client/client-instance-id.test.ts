/**
 * clientInstanceId(timeoutMs) of samsa's producer, consumer and share consumer (KIP-714, Kafka's
 * clientInstanceId(Duration)) against a real in-process cluster whose brokers have a telemetry
 * receiver: the id a broker gave each, in Kafka's form; an IllegalStateError with
 * enable.metrics.push false; a RangeError for a negative timeout; and (against a client whose
 * telemetry never gets an id) a REQUEST_TIMED_OUT error once the timeout is up.
 */
import { expect } from 'chai';
import { awaitClientInstanceId } from '../../src/client/client-instance-id.js';
import { IllegalStateError, SamsaError } from '../../src/client/errors.js';
import { telemetrySink } from '../../actors/telemetry-sink/sink.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { TestCluster, fastFailover } from '../helpers/cluster.js';

const FAST = fastFailover({ 'client.telemetry.receiver': '/telemetry', 'group.initial.rebalance.delay.ms': 0, 'offsets.topic.num.partitions': 1 });
/** A Kafka Uuid as its toString gives it: url-safe base64 of 16 bytes, unpadded. */
const KAFKA_UUID = /^[A-Za-z0-9_-]{22}$/;

describe('client: clientInstanceId (KIP-714)', function () {
  this.timeout(60_000);
  let c: TestCluster;

  before(async () => {
    c = await TestCluster.start({ brokers: 1, ...FAST });
    c.brokerSystem(1).spawn(telemetrySink, { name: 'telemetry', args: undefined });
  });
  after(async () => {
    await c?.stop();
  });

  it('the producer, the consumer and the share consumer each get the id a broker gave them, in Kafka form', async () => {
    const samsa = c.samsa('kip714-ids');
    const producer = samsa.producer({ 'client.id': 'ids-producer' });
    const consumer = samsa.consumer({ groupId: 'ids-group', 'client.id': 'ids-consumer' });
    const share = samsa.shareConsumer({ groupId: 'ids-share', 'client.id': 'ids-share' });
    await producer.connect();
    await consumer.connect();
    await share.connect();
    try {
      const ids = [await producer.clientInstanceId(10_000), await consumer.clientInstanceId(10_000), await share.clientInstanceId(10_000)];
      for (const id of ids) expect(id).to.match(KAFKA_UUID);
      expect(new Set(ids).size).to.equal(3);
      expect((await consumer.describe()).telemetry?.clientInstanceId).to.equal(ids[1]);
      expect((await share.describe()).telemetry?.clientInstanceId).to.equal(ids[2]);
      // known now: a zero timeout answers it
      expect(await producer.clientInstanceId(0)).to.equal(ids[0]);
    } finally {
      await share.close();
      await consumer.disconnect();
      await producer.disconnect();
    }
  });

  it('enable.metrics.push false: IllegalStateError; a negative timeout: RangeError', async () => {
    const samsa = c.samsa('kip714-off');
    const producer = samsa.producer({ 'enable.metrics.push': false });
    const consumer = samsa.consumer({ groupId: 'off-group', 'enable.metrics.push': false });
    const share = samsa.shareConsumer({ groupId: 'off-share', 'enable.metrics.push': false });
    await producer.connect();
    await consumer.connect();
    await share.connect();
    try {
      for (const client of [producer, consumer, share]) {
        const err = await client.clientInstanceId(1_000).catch((e: unknown) => e);
        expect(err).to.be.instanceOf(IllegalStateError);
        expect((err as Error).message).to.match(/enable\.metrics\.push/);
        const neg = await client.clientInstanceId(-1).catch((e: unknown) => e);
        expect(neg).to.be.instanceOf(RangeError);
      }
    } finally {
      await share.close();
      await consumer.disconnect();
      await producer.disconnect();
    }
  });

  it('an id not known within the timeout: SamsaError REQUEST_TIMED_OUT', async () => {
    let asked = 0;
    const started = Date.now();
    const err = await awaitClientInstanceId(60, async () => {
      asked++;
      return { state: 'SubscriptionNeeded', clientInstanceId: null, subscriptionId: null, pushIntervalMs: null, pushes: 0 };
    }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(SamsaError);
    expect((err as SamsaError).errorCode).to.equal(ErrorCode.REQUEST_TIMED_OUT);
    expect(Date.now() - started).to.be.at.least(55);
    expect(asked).to.be.greaterThan(1);
  });
});
