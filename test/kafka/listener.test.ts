/**
 * The Kafka listener's connection handling: version negotiation, pipelined requests answered in
 * order, and bad input closing only the offending connection while the broker carries on; its
 * connection limits (max.connections.per.ip, also changed at run time; an IP's
 * connection_creation_rate quota).
 */
import { expect } from 'chai';
import { ApiKeys } from '../../src/kafka/protocol/index.js';
import { SUPPORTED_VERSIONS } from '../../src/kafka/api/versions.js';
import { API_HANDLERS } from '../../src/kafka/api/dispatch.js';
import type { ApiHandler } from '../../src/kafka/api/context.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { encodeRecordBatch } from '../../src/protocol/record-batch.js';
import { startKafkaCluster, type KafkaTestCluster } from '../helpers/kafka-cluster.js';
import { RawKafkaSocket } from '../helpers/raw-kafka.js';
import { checkFor } from '../helpers/check-for.js';
import { kafkaListenerName, type KafkaListenerDescription } from '../../actors/kafka-listener/listener.js';

const MAX_REQUEST = 64 * 1024;

describe('Kafka listener connections', function () {
  this.timeout(30_000);
  let c: KafkaTestCluster;
  let endpoint: string;
  const open: RawKafkaSocket[] = [];
  const connect = async () => {
    const s = await RawKafkaSocket.connect(endpoint);
    open.push(s);
    return s;
  };

  before(async () => {
    c = await startKafkaCluster({ brokers: 1, brokerConfig: { 'socket.request.max.bytes': MAX_REQUEST }, topics: [{ name: 'raw', partitions: 2, replicationFactor: 1 }] });
    endpoint = c.bootstrap[0]!;
  });
  afterEach(() => {
    for (const s of open.splice(0)) s.end();
  });
  after(async () => {
    await c?.stop();
  });

  async function expectHealthy(): Promise<void> {
    const s = await connect();
    s.request(ApiKeys.Metadata, 9, 7, { topics: null, allowAutoTopicCreation: false });
    const r = await s.response(ApiKeys.Metadata, 9);
    expect(r.correlationId).to.equal(7);
    expect(r.body.topics.map((t: { name: string }) => t.name)).to.include('raw');
  }

  for (const v of [0, 1, 2, 3, 4]) {
    it(`answers ApiVersions v${v} with one contiguous range per API`, async () => {
      const s = await connect();
      s.request(ApiKeys.ApiVersions, v, 42, v >= 3 ? { clientSoftwareName: 'raw', clientSoftwareVersion: '1.0' } : {});
      const r = await s.response(ApiKeys.ApiVersions, v);
      expect(r.correlationId).to.equal(42);
      expect(r.body.errorCode).to.equal(ErrorCode.NONE);
      const got = new Map<number, [number, number]>(r.body.apiKeys.map((k: { apiKey: number; minVersion: number; maxVersion: number }) => [k.apiKey, [k.minVersion, k.maxVersion]]));
      for (const [key, range] of SUPPORTED_VERSIONS) expect(got.get(key), `api ${key}`).to.deep.equal([range.min, range.max]);
      expect(got.size).to.equal(SUPPORTED_VERSIONS.size);
    });
  }

  it('answers an ApiVersions version it does not know in v0 with UNSUPPORTED_VERSION and its ApiVersions range alone, as Kafka, and keeps the connection', async () => {
    const s = await connect();
    // a future ApiVersions: header v2 (flexible), body we cannot know; the answer must still be v0
    const body = Buffer.from([0x00, 0x00]);
    const header = Buffer.alloc(2 + 2 + 4 + 2 + 3 + 1);
    let o = header.writeInt16BE(ApiKeys.ApiVersions, 0);
    o = header.writeInt16BE(77, o);
    o = header.writeInt32BE(5, o);
    o = header.writeInt16BE(3, o);
    o += header.write('new', o);
    header.writeUInt8(0, o);
    const frame = Buffer.concat([header, body]);
    const size = Buffer.alloc(4);
    size.writeInt32BE(frame.length);
    s.write(Buffer.concat([size, frame]));
    const r = await s.response(ApiKeys.ApiVersions, 0);
    expect(r.correlationId).to.equal(5);
    expect(r.body.errorCode).to.equal(ErrorCode.UNSUPPORTED_VERSION);
    expect(r.body.apiKeys).to.deep.equal([{ apiKey: ApiKeys.ApiVersions, minVersion: 0, maxVersion: 4 }]);
    // the client retries with a version we advertise, on the same connection
    s.request(ApiKeys.ApiVersions, 3, 6, { clientSoftwareName: 'raw', clientSoftwareVersion: '1.0' });
    expect((await s.response(ApiKeys.ApiVersions, 3)).body.errorCode).to.equal(ErrorCode.NONE);
  });

  it('answers pipelined requests in the order they were sent', async () => {
    const s = await connect();
    s.request(ApiKeys.Metadata, 1, 1, { topics: [{ name: 'raw' }] });
    s.request(ApiKeys.ApiVersions, 2, 2, {});
    s.request(ApiKeys.Metadata, 9, 3, { topics: null, allowAutoTopicCreation: false });
    expect((await s.response(ApiKeys.Metadata, 1)).correlationId).to.equal(1);
    expect((await s.response(ApiKeys.ApiVersions, 2)).correlationId).to.equal(2);
    expect((await s.response(ApiKeys.Metadata, 9)).correlationId).to.equal(3);
  });

  it('sends nothing for a Produce with acks 0, and answers the next request', async () => {
    const s = await connect();
    const records = encodeRecordBatch({ records: [{ key: Buffer.from('k'), value: Buffer.from('v'), timestamp: Date.now() }] });
    s.request(ApiKeys.Produce, 7, 10, { transactionalId: null, acks: 0, timeoutMs: 1000, topicData: [{ name: 'raw', partitionData: [{ index: 0, records }] }] });
    s.request(ApiKeys.ListOffsets, 5, 11, { replicaId: -1, isolationLevel: 0, topics: [{ name: 'raw', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1 }] }] });
    const r = await s.response(ApiKeys.ListOffsets, 5);
    expect(r.correlationId).to.equal(11);
    expect(r.body.topics[0].partitions[0].errorCode).to.equal(ErrorCode.NONE);
    // and the unacknowledged record did land
    let id = 12;
    await checkFor(async () => {
      s.request(ApiKeys.ListOffsets, 5, id, { replicaId: -1, isolationLevel: 0, topics: [{ name: 'raw', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1 }] }] });
      const again = await s.response(ApiKeys.ListOffsets, 5);
      expect(again.correlationId).to.equal(id++);
      return again.body.topics[0].partitions[0].offset === 1;
    });
  });

  it("closes the connection after an acks=0 Produce that failed, once the answers before it are out (Kafka's KafkaApis), so the client looks for the leader again", async () => {
    const s = await connect();
    const records = () => encodeRecordBatch({ records: [{ key: Buffer.from('k'), value: Buffer.from('v'), timestamp: Date.now() }] });
    // a request before it is answered; a partition the topic does not have fails the produce
    s.request(ApiKeys.Metadata, 9, 20, { topics: null, allowAutoTopicCreation: false });
    s.request(ApiKeys.Produce, 7, 21, { transactionalId: null, acks: 0, timeoutMs: 1000, topicData: [{ name: 'raw', partitionData: [{ index: 0, records: records() }, { index: 7, records: records() }] }] });
    expect((await s.response(ApiKeys.Metadata, 9)).correlationId).to.equal(20);
    expect(await s.waitClosed(), 'connection closed').to.equal(true);
    // the partition that exists was written all the same, as Kafka appends what it can
    const other = await connect();
    const offsetOf = async (id: number) => {
      other.request(ApiKeys.ListOffsets, 5, id, { replicaId: -1, isolationLevel: 0, topics: [{ name: 'raw', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1 }] }] });
      return (await other.response(ApiKeys.ListOffsets, 5)).body.topics[0].partitions[0].offset as number;
    };
    const before = await offsetOf(30);
    expect(before).to.be.greaterThan(0);
    // a topic the cluster does not have: closed too, and the broker carries on
    const third = await connect();
    third.request(ApiKeys.Produce, 7, 40, { transactionalId: null, acks: 0, timeoutMs: 1000, topicData: [{ name: 'no-such-topic', partitionData: [{ index: 0, records: records() }] }] });
    expect(await third.waitClosed(), 'connection closed').to.equal(true);
    // one that succeeds keeps it open
    other.request(ApiKeys.Produce, 7, 31, { transactionalId: null, acks: 0, timeoutMs: 1000, topicData: [{ name: 'raw', partitionData: [{ index: 0, records: records() }] }] });
    let id = 32;
    await checkFor(async () => (await offsetOf(id++)) === before + 1);
    expect(other.closed).to.equal(false);
    await expectHealthy();
  });

  const closes: [string, () => Buffer][] = [
    ['garbage bytes', () => Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n')],
    ['a size above socket.request.max.bytes', () => sized(MAX_REQUEST + 1, Buffer.alloc(16))],
    ['a negative size', () => Buffer.from([0xff, 0xff, 0xff, 0xf0, 0, 0, 0, 0])],
    ['a request too short for a header', () => sized(3, Buffer.from([0, 3, 0]))],
    ['an unknown API key', () => sized(10, header(999, 0, 1))],
    ['an unsupported version of a known API', () => sized(10, header(ApiKeys.Metadata, 99, 1))],
    ['an API we do not implement (Kafka transactions)', () => sized(10, header(24, 0, 1))],
    ['a truncated request (array claims more than the frame holds)', () => {
      const h = header(ApiKeys.Metadata, 1, 1);
      const body = Buffer.alloc(4);
      body.writeInt32BE(5); // five topic names follow... but none do
      return sized(h.length + body.length, Buffer.concat([h, body]));
    }],
    ['a string length running past the frame', () => {
      const h = header(ApiKeys.Metadata, 1, 1);
      const body = Buffer.alloc(6);
      body.writeInt32BE(1);
      body.writeInt16BE(300, 4);
      return sized(h.length + body.length, Buffer.concat([h, body]));
    }],
  ];
  for (const [what, bytes] of closes) {
    it(`closes the connection on ${what}; other connections and the broker carry on`, async () => {
      const bystander = await connect();
      const bad = await connect();
      bad.write(bytes());
      expect(await bad.waitClosed(), 'bad connection closed').to.equal(true);
      expect(bystander.closed).to.equal(false);
      bystander.request(ApiKeys.ApiVersions, 0, 9, {});
      expect((await bystander.response(ApiKeys.ApiVersions, 0)).body.errorCode).to.equal(ErrorCode.NONE);
      await expectHealthy();
    });
  }

  it('a response that cannot be encoded closes that connection, logged, and the broker carries on', async () => {
    const handlers = API_HANDLERS as Map<number, ApiHandler<any>>;
    const original = handlers.get(ApiKeys.ApiVersions)!;
    handlers.set(ApiKeys.ApiVersions, async () => ({ errorCode: 70_000, apiKeys: [] }));
    try {
      const s = await connect();
      s.request(ApiKeys.ApiVersions, 3, 1, { clientSoftwareName: 'raw', clientSoftwareVersion: '1.0' });
      expect(await s.waitClosed()).to.equal(true);
    } finally {
      handlers.set(ApiKeys.ApiVersions, original);
    }
    await expectHealthy();
  });

  it('a client that disconnects mid-request leaves the broker serving others', async () => {
    const s = await connect();
    const full = sized(100, Buffer.alloc(100));
    s.write(full.subarray(0, 30));
    s.end();
    await expectHealthy();
  });
});

/** A request header v1: api key, version, correlation id, client id 'x'. */
function header(apiKey: number, apiVersion: number, correlationId: number): Buffer {
  const b = Buffer.alloc(11);
  b.writeInt16BE(apiKey, 0);
  b.writeInt16BE(apiVersion, 2);
  b.writeInt32BE(correlationId, 4);
  b.writeInt16BE(1, 8);
  b.write('x', 10);
  return b;
}

function sized(size: number, body: Buffer): Buffer {
  const s = Buffer.alloc(4);
  s.writeInt32BE(size);
  return Buffer.concat([s, body]);
}

describe('Kafka listener connection limits (max.connections.per.ip, connection_creation_rate)', function () {
  this.timeout(30_000);
  let c: KafkaTestCluster;
  const open: RawKafkaSocket[] = [];
  before(async () => {
    c = await startKafkaCluster({ brokers: 1, brokerConfig: { 'max.connections.per.ip': 2, 'max.connections.per.ip.overrides': '::1:5' } });
  });
  afterEach(() => {
    for (const s of open.splice(0)) s.end();
  });
  after(async () => {
    await c?.stop();
  });

  const metadataAnswered = async (s: RawKafkaSocket, id: number): Promise<boolean> => {
    s.request(ApiKeys.Metadata, 9, id, { topics: [], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    return (await s.frame(5_000)) !== null;
  };
  const connect = async () => {
    const s = await RawKafkaSocket.connect(c.bootstrap[0]!);
    open.push(s);
    return s;
  };
  const listener = async () =>
    (await c.handle.mainSystem.ask<KafkaListenerDescription>({ node: 'main', path: `/${kafkaListenerName(1)}` }, { type: 'DescribeKafkaListener' }, { timeoutMs: 5_000 })) as KafkaListenerDescription;

  it('closes a connection beyond max.connections.per.ip at once, and takes one again when another closes', async () => {
    const [a, b] = [await connect(), await connect()];
    expect(await metadataAnswered(a, 1)).to.equal(true);
    expect(await metadataAnswered(b, 1)).to.equal(true);
    const third = await connect();
    expect(await third.frame(5_000), 'closed without an answer').to.equal(null);
    expect((await listener()).refusedConnections).to.be.at.least(1);
    a.end();
    await checkFor(async () => (await listener()).open === 1, 5_000, 10);
    expect(await metadataAnswered(await connect(), 1)).to.equal(true);
  });

  it('takes max.connections.per.ip set at run time (a dynamic broker config) for the next connections, and its topology value back when deleted', async () => {
    const alter = async (s: RawKafkaSocket, operation: number, value: string | null) => {
      s.request(ApiKeys.IncrementalAlterConfigs, 1, 7, { resources: [{ resourceType: 4, resourceName: '1', configs: [{ name: 'max.connections.per.ip', configOperation: operation, value }] }], validateOnly: false });
      const frame = await s.frame(5_000);
      expect(frame, 'answered').to.not.equal(null);
    };
    const refusedNow = async () => {
      const s = await connect();
      const answered = await metadataAnswered(s, 1);
      s.end();
      return !answered;
    };
    const a = await connect();
    expect(await metadataAnswered(a, 1)).to.equal(true);
    // the topology allows 2 from one address: lowered to 1, the next is refused while `a` stays open
    await alter(a, 0, '1');
    await checkFor(async () => ((await refusedNow()) ? true : null), 10_000, 50);
    expect(await metadataAnswered(a, 2), 'an open connection stays').to.equal(true);
    // deleted: the topology's 2 again
    await alter(a, 1, null);
    await checkFor(async () => ((await refusedNow()) ? null : true), 10_000, 50);
  });

  it("an IP's connection_creation_rate quota (AlterClientQuotas, ip entity) closes the connections beyond it after the throttle time", async () => {
    const admin = await connect();
    const set = await (async () => {
      admin.request(ApiKeys.AlterClientQuotas, 1, 1, { entries: [{ entity: [{ entityType: 'ip', entityName: '127.0.0.1' }], ops: [{ key: 'connection_creation_rate', value: 1, remove: false }] }], validateOnly: false });
      return admin.frame(5_000);
    })();
    expect(set).to.not.equal(null);
    admin.end();
    await checkFor(async () => (await listener()).clientQuotas >= 1, 5_000, 10);
    const before = (await listener()).refusedConnections;
    // one a second: of four in a row (each closed before the next, so max.connections.per.ip
    // plays no part), the later ones are refused
    await checkFor(async () => (await listener()).open === 0, 5_000, 10);
    const answered = [];
    for (let i = 0; i < 4; i++) {
      const s = await connect();
      answered.push(await metadataAnswered(s, 1));
      s.end();
      await checkFor(async () => (await listener()).open === 0, 5_000, 10);
    }
    expect(answered[0]).to.equal(true);
    expect(answered.filter((x) => !x).length).to.be.at.least(2);
    expect((await listener()).refusedConnections - before).to.be.at.least(2);
  });
});
