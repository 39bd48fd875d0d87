/**
 * clientInstanceId(timeoutMs) of samsa's producer, consumer, share consumer and admin client
 * (KIP-714, Kafka's clientInstanceId(Duration)) against a real in-process cluster whose brokers
 * have a telemetry receiver: the id a broker gave each, in Kafka's form; an IllegalStateError
 * with enable.metrics.push false (the admin's default, as Kafka's); a RangeError for a negative
 * timeout. Then, against a producer actor and a fake broker on a fake clock (no sleeping): one
 * GetClientInstanceId answered as soon as the broker gives the id, null at the timeout and not
 * before (as Kafka 4.2), null at once when telemetry stops without an id (the broker disables
 * it, the client closes), and a zero timeout answering what is known.
 */
import { expect } from 'chai';
import type { ProducerMsg } from '../../actors/producer/messages.js';
import { producer as producerActor } from '../../actors/producer/producer.js';
import { telemetrySink } from '../../actors/telemetry-sink/sink.js';
import { ANSWER_GRACE_MS, awaitClientInstanceId, type GetClientInstanceId } from '../../src/client/client-instance-id.js';
import { IllegalStateError } from '../../src/client/errors.js';
import type { ClientInstanceIdReply } from '../../src/client/telemetry-loop.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import type { ActorRef } from '../../src/runtime/types.js';
import { checkFor } from '../helpers/check-for.js';
import { TestCluster, fastFailover } from '../helpers/cluster.js';
import { subscriptionAnswer, TELEMETRY_NODE, telemetryHarness } from '../helpers/fake-telemetry-broker.js';

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

  it('the producer, the consumer, the share consumer and the admin client each get the id a broker gave them, in Kafka form', async () => {
    const samsa = c.samsa('kip714-ids');
    const producer = samsa.producer({ 'client.id': 'ids-producer' });
    const consumer = samsa.consumer({ groupId: 'ids-group', 'client.id': 'ids-consumer' });
    const share = samsa.shareConsumer({ groupId: 'ids-share', 'client.id': 'ids-share' });
    const admin = samsa.admin({ 'client.id': 'ids-admin', 'enable.metrics.push': true });
    await producer.connect();
    await consumer.connect();
    await share.connect();
    await admin.connect();
    try {
      const ids = [await producer.clientInstanceId(10_000), await consumer.clientInstanceId(10_000), await share.clientInstanceId(10_000), await admin.clientInstanceId(10_000)];
      for (const id of ids) expect(id).to.match(KAFKA_UUID);
      expect(new Set(ids).size).to.equal(4);
      expect((await consumer.describe()).telemetry?.clientInstanceId).to.equal(ids[1]);
      expect((await share.describe()).telemetry?.clientInstanceId).to.equal(ids[2]);
      // known now: a zero timeout answers it
      expect(await producer.clientInstanceId(0)).to.equal(ids[0]);
      expect(await admin.clientInstanceId(0)).to.equal(ids[3]);
    } finally {
      await admin.disconnect();
      await share.close();
      await consumer.disconnect();
      await producer.disconnect();
    }
  });

  it("enable.metrics.push false (the admin's default): IllegalStateError; a negative timeout: RangeError", async () => {
    const samsa = c.samsa('kip714-off');
    const producer = samsa.producer({ 'enable.metrics.push': false });
    const consumer = samsa.consumer({ groupId: 'off-group', 'enable.metrics.push': false });
    const share = samsa.shareConsumer({ groupId: 'off-share', 'enable.metrics.push': false });
    const admin = samsa.admin();
    await producer.connect();
    await consumer.connect();
    await share.connect();
    await admin.connect();
    try {
      for (const client of [producer, consumer, share, admin]) {
        const err = await client.clientInstanceId(1_000).catch((e: unknown) => e);
        expect(err).to.be.instanceOf(IllegalStateError);
        expect((err as Error).message).to.match(/enable\.metrics\.push/);
        const neg = await client.clientInstanceId(-1).catch((e: unknown) => e);
        expect(neg).to.be.instanceOf(RangeError);
      }
    } finally {
      await admin.disconnect();
      await share.close();
      await consumer.disconnect();
      await producer.disconnect();
    }
  });
});

describe('client: clientInstanceId waits for a message, not by polling (fake clock)', function () {
  this.timeout(20_000);
  const h = telemetryHarness();
  let n = 0;
  let asks: { msg: GetClientInstanceId; askTimeoutMs: number }[] = [];

  const start = (): ActorRef<ProducerMsg> =>
    h.sys.spawn(producerActor, { name: `p${++n}`, args: { bootstrap: [{ brokerId: 1, node: TELEMETRY_NODE }], config: { 'client.id': 'id-app', 'request.timeout.ms': 10_000 }, random: () => 0.5 } });
  /** clientInstanceId as the clients call it, each ask to the actor logged; settles into `out`. */
  const call = (p: ActorRef<ProducerMsg>, timeoutMs: number) => {
    const out: { value?: string | null; error?: unknown; settled: boolean } = { settled: false };
    void awaitClientInstanceId(timeoutMs, (msg, askTimeoutMs) => {
      asks.push({ msg, askTimeoutMs });
      return h.sys.ask<ClientInstanceIdReply>(p, msg, { timeoutMs: askTimeoutMs });
    }).then(
      (value) => Object.assign(out, { value, settled: true }),
      (error: unknown) => Object.assign(out, { error, settled: true }),
    );
    return out;
  };
  const subscription = (over: Record<string, unknown> = {}) => subscriptionAnswer({ clientInstanceId: 'producer-id-0000000000', subscriptionId: 3, acceptedCompressionTypes: [], requestedMetrics: ['org.apache.kafka.producer.'] }, over);
  beforeEach(() => {
    asks = [];
  });

  it('one ask, answered as soon as the broker gives the id (the clock does not move)', async () => {
    const p = start();
    const sub = await h.request(0);
    const r = call(p, 30_000);
    await h.clock.advanceAsync(0);
    expect(r.settled).to.equal(false);
    const before = h.clock.now();
    h.answer(sub, subscription());
    await checkFor(() => r.settled, 5_000, 1);
    expect(r.value).to.equal('producer-id-0000000000');
    expect(h.clock.now()).to.equal(before);
    expect(asks).to.deep.equal([{ msg: { type: 'GetClientInstanceId', timeoutMs: 30_000 }, askTimeoutMs: 30_000 + ANSWER_GRACE_MS }]);
  });

  it('an id not known within the timeout: null at the timeout (as Kafka 4.2), not before', async () => {
    const p = start();
    await h.request(0);
    const r = call(p, 5_000);
    await h.clock.advanceAsync(4_999);
    expect(r.settled).to.equal(false);
    await h.clock.advanceAsync(1);
    await checkFor(() => r.settled, 5_000, 1);
    expect(r.error).to.equal(undefined);
    expect(r.value).to.equal(null);
    expect(asks).to.have.length(1);
  });

  it('telemetry stopping without an id (the broker disables it, or the client closes): null at once', async () => {
    const disabled = start();
    const sub = await h.request(0);
    const r1 = call(disabled, 60_000);
    await h.clock.advanceAsync(0);
    h.answer(sub, subscription({ errorCode: ErrorCode.UNSUPPORTED_VERSION, clientInstanceId: 'AAAAAAAAAAAAAAAAAAAAAA', requestedMetrics: [] }));
    await checkFor(() => r1.settled, 5_000, 1);
    expect(r1.error).to.equal(undefined);
    expect(r1.value).to.equal(null);

    const closing = start();
    await h.request(1);
    const r2 = call(closing, 60_000);
    await h.clock.advanceAsync(0);
    expect(r2.settled).to.equal(false);
    void h.sys.ask(closing, { type: 'Close' });
    await checkFor(() => r2.settled, 5_000, 1);
    expect(r2.error).to.equal(undefined);
    expect(r2.value).to.equal(null);
  });

  it('a zero timeout answers what is known: null before the id, the id after', async () => {
    const p = start();
    const sub = await h.request(0);
    const before = call(p, 0);
    await checkFor(() => before.settled, 5_000, 1);
    expect(before.error).to.equal(undefined);
    expect(before.value).to.equal(null);
    h.answer(sub, subscription());
    await checkFor(async () => (await h.sys.ask<ClientInstanceIdReply>(p, { type: 'GetClientInstanceId', timeoutMs: 0 })).errorCode === ErrorCode.NONE, 5_000, 1);
    const after = call(p, 0);
    await checkFor(() => after.settled, 5_000, 1);
    expect(after.value).to.equal('producer-id-0000000000');
  });
});
