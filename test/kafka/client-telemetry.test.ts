/**
 * A broker's client metrics (KIP-714), src/kafka/client-telemetry.ts, with a fake clock: the
 * subscription a client instance gets (matching, union of metrics, shortest interval, Kafka's
 * "every metric" form), and each state of an instance's requests, legal and refused: a first
 * GetTelemetrySubscriptions, asking again too soon, the early first push, pushes too soon, a
 * stale subscription id, a codec Kafka does not define, too large, a terminating push and what
 * follows it, subscriptions changing under an instance, expiry; what the receiver gets.
 */
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { ClientTelemetry, subscriptionIdOf, type ClientTelemetryPush, type TelemetryClient } from '../../src/kafka/client-telemetry.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { FakeClock } from '../../src/runtime/clock.js';
import type { ActorRef, Message } from '../../src/runtime/types.js';

const ZERO = 'AAAAAAAAAAAAAAAAAAAAAA';
const client: TelemetryClient = { clientId: 'app-1', softwareName: 'apache-kafka-java', softwareVersion: '3.9.0', sourceAddress: '10.0.0.7', sourcePort: 53211, principal: 'User:alice' };
const SUBS = {
  producers: { metrics: 'org.apache.kafka.producer.', 'interval.ms': '5000', match: 'client_software_name=apache-kafka-java,client_id=app-.*' },
  all: { metrics: 'org.apache.kafka.consumer.fetch,org.apache.kafka.producer.', 'interval.ms': '2000', match: 'client_source_address=10\\..*' },
  others: { metrics: '*', 'interval.ms': '100', match: 'client_software_name=librdkafka' },
};

describe('kafka/client-telemetry', () => {
  let clock: FakeClock;
  let pushes: ClientTelemetryPush[];
  let answer: unknown;
  let t: ClientTelemetry;
  let ids: number;
  const receiver: ActorRef<Message> = { node: 'n', path: '/sink' };
  const ask = async (_to: ActorRef<Message>, msg: Message) => {
    pushes.push(msg as unknown as ClientTelemetryPush);
    return answer;
  };
  const push = (req: Partial<Parameters<ClientTelemetry['push']>[0]> & { clientInstanceId: string; subscriptionId: number }, subs: Record<string, Record<string, string>> = SUBS) =>
    t.push({ terminating: false, compressionType: 0, metrics: new Uint8Array([1, 2, 3]), ...req }, client, subs, ask, 1000);

  beforeEach(() => {
    clock = new FakeClock(1_000_000);
    pushes = [];
    answer = { type: 'ClientTelemetryTaken' };
    ids = 0;
    t = new ClientTelemetry({ brokerId: 3, receiver, maxBytes: 64, clock, newInstanceId: () => `client-instance-id-${++ids}`.padEnd(22, 'x').slice(0, 22) });
  });

  it('a first GetTelemetrySubscriptions without an instance id gets a new one and the subscriptions it matches: their metrics, the shortest interval', () => {
    const a = t.getSubscriptions(ZERO, client, SUBS);
    expect(a.errorCode).to.equal(ErrorCode.NONE);
    expect(a.clientInstanceId).to.equal('client-instance-id-1xx');
    expect(a.requestedMetrics).to.deep.equal(['org.apache.kafka.consumer.fetch', 'org.apache.kafka.producer.']);
    expect(a.pushIntervalMs).to.equal(2000);
    expect(a.acceptedCompressionTypes).to.deep.equal([4, 3, 1, 2]);
    expect([a.telemetryMaxBytes, a.deltaTemporality]).to.deep.equal([64, true]);
    expect(a.subscriptionId).to.equal(subscriptionIdOf(['org.apache.kafka.consumer.fetch', 'org.apache.kafka.producer.'], 2000, a.clientInstanceId));
  });

  it("a client matching a subscription with '*' gets every metric, as Kafka's one empty prefix; one matching none the default interval and no metrics", () => {
    const rd = t.getSubscriptions(ZERO, { ...client, softwareName: 'librdkafka' }, SUBS);
    expect([rd.requestedMetrics, rd.pushIntervalMs]).to.deep.equal([[''], 100]);
    const none = t.getSubscriptions(ZERO, { ...client, sourceAddress: '192.168.1.1', clientId: 'other' }, SUBS);
    expect([none.requestedMetrics, none.pushIntervalMs]).to.deep.equal([[], 300_000]);
    // a pattern matches the whole value: 'app-.*' does not match 'my-app-1'
    const partial = t.getSubscriptions(ZERO, { ...client, clientId: 'my-app-1' }, { producers: SUBS.producers });
    expect(partial.requestedMetrics).to.deep.equal([]);
  });

  it('the same client instance gets the same subscription id from any broker', () => {
    const other = new ClientTelemetry({ brokerId: 4, receiver, maxBytes: 64, clock });
    const a = t.getSubscriptions('AbCdEfGhIjKlMnOpQrStUw', client, SUBS);
    const b = other.getSubscriptions('AbCdEfGhIjKlMnOpQrStUw', client, SUBS);
    expect(b.subscriptionId).to.equal(a.subscriptionId);
    expect(b.clientInstanceId).to.equal('AbCdEfGhIjKlMnOpQrStUw');
  });

  it('asking again before the push interval is THROTTLING_QUOTA_EXCEEDED; after it, the subscription again', () => {
    const id = t.getSubscriptions(ZERO, client, SUBS).clientInstanceId;
    clock.advance(1999);
    expect(t.getSubscriptions(id, client, SUBS).errorCode).to.equal(ErrorCode.THROTTLING_QUOTA_EXCEEDED);
    clock.advance(1);
    expect(t.getSubscriptions(id, client, SUBS).errorCode).to.equal(ErrorCode.NONE);
  });

  it('the first push after a GetTelemetrySubscriptions may come early; the next waits the interval; the receiver gets each with the client', async () => {
    const a = t.getSubscriptions(ZERO, client, SUBS);
    clock.advance(10);
    expect(await push({ clientInstanceId: a.clientInstanceId, subscriptionId: a.subscriptionId })).to.deep.equal({ errorCode: ErrorCode.NONE, errorMessage: null });
    clock.advance(1500);
    expect((await push({ clientInstanceId: a.clientInstanceId, subscriptionId: a.subscriptionId })).errorCode).to.equal(ErrorCode.THROTTLING_QUOTA_EXCEEDED);
    clock.advance(500);
    expect((await push({ clientInstanceId: a.clientInstanceId, subscriptionId: a.subscriptionId })).errorCode).to.equal(ErrorCode.NONE);
    expect(pushes).to.have.length(2);
    expect(pushes[0]).to.deep.include({
      type: 'ClientTelemetryPush',
      brokerId: 3,
      clientInstanceId: a.clientInstanceId,
      clientId: 'app-1',
      clientSoftwareName: 'apache-kafka-java',
      clientSoftwareVersion: '3.9.0',
      clientSourceAddress: '10.0.0.7',
      clientSourcePort: 53211,
      principal: 'User:alice',
      subscriptionId: a.subscriptionId,
      terminating: false,
      contentType: 'application/x-protobuf',
    });
    expect([...pushes[0]!.metrics]).to.deep.equal([1, 2, 3]);
  });

  it('a push with another subscription id is UNKNOWN_SUBSCRIPTION_ID, and the client may then ask again at once', async () => {
    const a = t.getSubscriptions(ZERO, client, SUBS);
    expect((await push({ clientInstanceId: a.clientInstanceId, subscriptionId: a.subscriptionId + 1 })).errorCode).to.equal(ErrorCode.UNKNOWN_SUBSCRIPTION_ID);
    expect(t.getSubscriptions(a.clientInstanceId, client, SUBS).errorCode).to.equal(ErrorCode.NONE);
    expect(pushes).to.have.length(0);
  });

  it('when the subscriptions change the instance is worked out again: the old id is refused, the client may ask at once and gets the new one', async () => {
    const a = t.getSubscriptions(ZERO, client, SUBS);
    const changed = { ...SUBS, all: { ...SUBS.all, 'interval.ms': '1000' } };
    expect((await push({ clientInstanceId: a.clientInstanceId, subscriptionId: a.subscriptionId }, changed)).errorCode).to.equal(ErrorCode.UNKNOWN_SUBSCRIPTION_ID);
    clock.advance(1);
    const b = t.getSubscriptions(a.clientInstanceId, client, changed);
    expect([b.errorCode, b.pushIntervalMs]).to.deep.equal([ErrorCode.NONE, 1000]);
    expect(b.subscriptionId).to.not.equal(a.subscriptionId);
    clock.advance(1);
    expect((await push({ clientInstanceId: a.clientInstanceId, subscriptionId: b.subscriptionId }, changed)).errorCode).to.equal(ErrorCode.NONE);
  });

  it('compressed pushes reach the receiver decompressed; a codec Kafka does not define is UNSUPPORTED_COMPRESSION_TYPE; a payload that does not decompress INVALID_RECORD', async () => {
    const a = t.getSubscriptions(ZERO, client, SUBS);
    const body = Buffer.from('metrics '.repeat(4));
    expect((await push({ clientInstanceId: a.clientInstanceId, subscriptionId: a.subscriptionId, compressionType: 1, metrics: gzipSync(body) })).errorCode).to.equal(ErrorCode.NONE);
    expect(Buffer.from(pushes[0]!.metrics).toString()).to.equal(body.toString());
    clock.advance(2000);
    expect((await push({ clientInstanceId: a.clientInstanceId, subscriptionId: a.subscriptionId, compressionType: 9 })).errorCode).to.equal(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE);
    clock.advance(2000);
    expect((await push({ clientInstanceId: a.clientInstanceId, subscriptionId: a.subscriptionId, compressionType: 4, metrics: new Uint8Array([9, 9, 9, 9]) })).errorCode).to.equal(ErrorCode.INVALID_RECORD);
    expect(pushes).to.have.length(1);
  });

  it('a payload over telemetry.max.bytes is TELEMETRY_TOO_LARGE; a receiver that refuses or does not answer makes the push INVALID_RECORD', async () => {
    const a = t.getSubscriptions(ZERO, client, SUBS);
    expect((await push({ clientInstanceId: a.clientInstanceId, subscriptionId: a.subscriptionId, metrics: new Uint8Array(65) })).errorCode).to.equal(ErrorCode.TELEMETRY_TOO_LARGE);
    clock.advance(2000);
    answer = { type: 'Refused', errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: 'disk full' };
    const refused = await push({ clientInstanceId: a.clientInstanceId, subscriptionId: a.subscriptionId });
    expect(refused.errorCode).to.equal(ErrorCode.INVALID_RECORD);
    expect(refused.errorMessage).to.contain('disk full');
    clock.advance(2000);
    answer = { type: 'Failure', errorCode: ErrorCode.REQUEST_TIMED_OUT, reason: 'timeout', message: 'ask timed out' };
    expect((await push({ clientInstanceId: a.clientInstanceId, subscriptionId: a.subscriptionId })).errorCode).to.equal(ErrorCode.INVALID_RECORD);
  });

  it('an empty push is accepted without troubling the receiver', async () => {
    const a = t.getSubscriptions(ZERO, client, SUBS);
    expect((await push({ clientInstanceId: a.clientInstanceId, subscriptionId: a.subscriptionId, metrics: new Uint8Array(0) })).errorCode).to.equal(ErrorCode.NONE);
    expect(pushes).to.have.length(0);
  });

  it('a terminating push may come early; anything pushed after it is INVALID_REQUEST', async () => {
    const a = t.getSubscriptions(ZERO, client, SUBS);
    expect((await push({ clientInstanceId: a.clientInstanceId, subscriptionId: a.subscriptionId })).errorCode).to.equal(ErrorCode.NONE);
    clock.advance(5);
    expect((await push({ clientInstanceId: a.clientInstanceId, subscriptionId: a.subscriptionId, terminating: true })).errorCode).to.equal(ErrorCode.NONE);
    expect(pushes[1]!.terminating).to.equal(true);
    clock.advance(5000);
    const after = await push({ clientInstanceId: a.clientInstanceId, subscriptionId: a.subscriptionId });
    expect(after.errorCode).to.equal(ErrorCode.INVALID_REQUEST);
    expect(after.errorMessage).to.contain('terminating');
  });

  it('a push without an instance id is INVALID_REQUEST; one from an instance this broker has not seen is taken when its subscription id is right', async () => {
    expect((await push({ clientInstanceId: ZERO, subscriptionId: 1 })).errorCode).to.equal(ErrorCode.INVALID_REQUEST);
    const id = 'BbCdEfGhIjKlMnOpQrStUw';
    const right = subscriptionIdOf(['org.apache.kafka.consumer.fetch', 'org.apache.kafka.producer.'], 2000, id);
    expect((await push({ clientInstanceId: id, subscriptionId: right })).errorCode).to.equal(ErrorCode.NONE);
  });

  it('forgets instances max(60 s, 3 intervals) after their last request: a push then is a new instance\'s', async () => {
    const a = t.getSubscriptions(ZERO, { ...client, softwareName: 'librdkafka' }, SUBS);
    expect(t.size).to.equal(1);
    clock.advance(60_000);
    t.getSubscriptions(ZERO, client, SUBS);
    expect(t.size).to.equal(1);
    // the forgotten instance's next push is taken as a new instance's first
    expect((await push({ clientInstanceId: a.clientInstanceId, subscriptionId: 1 })).errorCode).to.equal(ErrorCode.UNKNOWN_SUBSCRIPTION_ID);
  });
});
