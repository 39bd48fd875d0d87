/**
 * The request-time quota over the Kafka protocol (request_percentage, KIP-124): AlterClientQuotas
 * sets it and DescribeClientQuotas lists it; a client over its share of the listener's time is
 * answered with a throttle time (at most the quota window's one-second sample) and nothing more is
 * read from it for that long, while another client goes on at once; the time a long-poll Fetch
 * waits in the broker is not the client's; the work this broker's actors do on a request (a
 * replica recompressing a Produce's records to its topic's codec) is; a Produce with acks 0 is
 * exempt.
 */
import { expect } from 'chai';
import { kafkaListenerName, type KafkaListenerDescription } from '../../../actors/kafka-listener/listener.js';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { encodeRecordBatch } from '../../../src/protocol/record-batch.js';
import { checkFor } from '../../helpers/check-for.js';
import { startKafkaCluster, type KafkaTestCluster } from '../../helpers/kafka-cluster.js';
import { KafkaCaller, consumerFetchBody } from '../../helpers/raw-kafka.js';

describe('Kafka API: request_percentage quotas', function () {
  this.timeout(60_000);
  let c: KafkaTestCluster;
  let admin: KafkaCaller;

  before(async () => {
    c = await startKafkaCluster({
      brokers: 1,
      topics: [
        { name: 'rq', partitions: 1, replicationFactor: 1 },
        { name: 'rq-gzip', partitions: 1, replicationFactor: 1, config: { 'compression.type': 'gzip' } },
        { name: 'rq-asis', partitions: 1, replicationFactor: 1 },
      ],
    });
    admin = await KafkaCaller.connect(c.bootstrap[0]!, 'admin');
  });
  after(async () => {
    admin?.end();
    await c?.stop();
  });

  const clientEntity = (name: string) => [{ entityType: 'client-id', entityName: name }];
  const listener = async () =>
    (await c.handle.mainSystem.ask<KafkaListenerDescription>({ node: 'main', path: `/${kafkaListenerName(1)}` }, { type: 'DescribeKafkaListener' }, { timeoutMs: 5_000 })) as KafkaListenerDescription;
  const metadata = (k: KafkaCaller) => k.call(ApiKeys.Metadata, 12, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });

  it('is set and described as a percentage; a negative or non-number value is refused', async () => {
    const r = await admin.call(ApiKeys.AlterClientQuotas, 1, {
      entries: [
        // a millionth of a thread: any request is over it
        { entity: clientEntity('busy'), ops: [{ key: 'request_percentage', value: 0.0001, remove: false }] },
        { entity: clientEntity('poller'), ops: [{ key: 'request_percentage', value: 20, remove: false }] },
        // 2% of a thread, 20 ms a second
        { entity: clientEntity('writer-gzip'), ops: [{ key: 'request_percentage', value: 2, remove: false }] },
        { entity: clientEntity('writer-asis'), ops: [{ key: 'request_percentage', value: 2, remove: false }] },
        { entity: clientEntity('neg'), ops: [{ key: 'request_percentage', value: -1, remove: false }] },
        { entity: clientEntity('nan'), ops: [{ key: 'request_percentage', value: Number.NaN, remove: false }] },
      ],
      validateOnly: false,
    });
    expect(r.entries.map((e: { errorCode: number }) => e.errorCode)).to.deep.equal([0, 0, 0, 0, ErrorCode.INVALID_REQUEST, ErrorCode.INVALID_REQUEST]);
    expect(r.entries[4].errorMessage).to.match(/request_percentage must be a positive percentage/);
    expect(r.entries[5].errorMessage).to.match(/request_percentage must be a positive percentage .* got NaN/);
    const d = await admin.call(ApiKeys.DescribeClientQuotas, 1, { components: [{ entityType: 'client-id', matchType: 2, match: null }], strict: true });
    expect(d.entries.map((e: { entity: unknown; values: unknown }) => [e.entity, e.values])).to.have.deep.members([
      [clientEntity('busy'), [{ key: 'request_percentage', value: 0.0001 }]],
      [clientEntity('poller'), [{ key: 'request_percentage', value: 20 }]],
      [clientEntity('writer-gzip'), [{ key: 'request_percentage', value: 2 }]],
      [clientEntity('writer-asis'), [{ key: 'request_percentage', value: 2 }]],
    ]);
    await checkFor(async () => (await listener()).clientQuotas === 4, 10_000, 20);
  });

  it('a client over it is answered with a throttle time and held back that long; another client is not', async () => {
    const busy = await KafkaCaller.connect(c.bootstrap[0]!, 'busy');
    const other = await KafkaCaller.connect(c.bootstrap[0]!, 'other');
    try {
      const first = await metadata(busy);
      expect(first.throttleTimeMs).to.be.within(1, 1_000);
      const before = (await listener()).requestTimeThrottledRequests;
      expect(before).to.be.greaterThan(0);
      const sent = Date.now();
      const held = metadata(busy);
      // meanwhile another client is served at once, never throttled
      for (let i = 0; i < 5; i++) {
        const t = Date.now();
        expect((await metadata(other)).throttleTimeMs).to.equal(0);
        expect(Date.now() - t).to.be.below(first.throttleTimeMs / 2);
      }
      const second = await held;
      expect(Date.now() - sent, 'the second request waited out the throttle time').to.be.at.least(first.throttleTimeMs - 250);
      expect(second.throttleTimeMs).to.be.within(1, 1_000);
    } finally {
      busy.end();
      other.end();
    }
  });

  it("the time a long-poll Fetch waits in the broker is not the client's", async () => {
    const poller = await KafkaCaller.connect(c.bootstrap[0]!, 'poller');
    try {
      // 20% of a thread is 200 ms a second: three 300 ms waits would be over it if they counted
      for (let i = 0; i < 3; i++) {
        const t = Date.now();
        const r = await poller.call(ApiKeys.Fetch, 12, consumerFetchBody('rq', 0, 0, { maxWaitMs: 300, minBytes: 1 }));
        expect(Date.now() - t).to.be.at.least(250);
        expect(r.responses[0].partitions[0].errorCode).to.equal(0);
        expect(r.throttleTimeMs).to.equal(0);
      }
    } finally {
      poller.end();
    }
  });

  it("the replica's work on a Produce is the client's: recompressing its records to the topic's codec puts it over", async () => {
    // 896 KiB of text-like values, three times: the replica's gzip takes ~50 ms each time here,
    // its plain append (a copy to the page cache) and the listener's own work on a request
    // (decoding it, encoding the answer) a few ms
    const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima', 'mike'];
    let x = 12345;
    const next = () => (x = (x * 1103515245 + 12345) >>> 0) >>> 8;
    let text = '';
    while (text.length < 64 * 1024) text += `${words[next() % words.length]}${next() % 1000} `;
    const value = Buffer.from(text.slice(0, 64 * 1024));
    const records = encodeRecordBatch({ records: Array.from({ length: 14 }, () => ({ value, timestamp: Date.now() })) });
    /** The throttle times of three Produces of those records to `topic`. */
    const produce = async (client: string, topic: string): Promise<number[]> => {
      const k = await KafkaCaller.connect(c.bootstrap[0]!, client);
      const throttles: number[] = [];
      try {
        for (let i = 0; i < 3; i++) {
          const r = await k.call(ApiKeys.Produce, 9, { transactionalId: null, acks: 1, timeoutMs: 30_000, topicData: [{ name: topic, partitionData: [{ index: 0, records }] }] });
          expect(r.responses[0].partitionResponses[0].errorCode).to.equal(0);
          throttles.push(r.throttleTimeMs as number);
        }
        return throttles;
      } finally {
        k.end();
      }
    };
    // the same bytes to a topic that keeps them as they are: its append is a copy to the page cache,
    // under the quota on a quiet machine (a loaded one can stretch those few ms past it, so the
    // check is that the gzip writer is held back more)
    const asis = await produce('writer-asis', 'rq-asis');
    const gzip = await produce('writer-gzip', 'rq-gzip');
    expect(Math.max(...gzip)).to.be.within(1, 1_000);
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    expect(sum(asis), `as is ${asis.join(', ')} ms, gzip ${gzip.join(', ')} ms`).to.be.below(sum(gzip));
  });

  it('a Produce with acks 0 is exempt: its time is counted apart', async () => {
    const { exemptRequestTimeMs: before, requestTimeThrottledRequests: throttled } = await listener();
    const busy = await KafkaCaller.connect(c.bootstrap[0]!, 'busy');
    try {
      const records = encodeRecordBatch({ records: [{ value: Buffer.from('v'), timestamp: Date.now() }] });
      busy.socket.request(ApiKeys.Produce, 9, 1, { transactionalId: null, acks: 0, timeoutMs: 5_000, topicData: [{ name: 'rq', partitionData: [{ index: 0, records }] }] }, 'busy');
      await checkFor(async () => (await listener()).exemptRequestTimeMs > before, 5_000, 10);
      // a millionth of a thread, and yet not throttled
      expect((await listener()).requestTimeThrottledRequests).to.equal(throttled);
    } finally {
      busy.end();
    }
  });
});

describe('Kafka API: request_percentage quotas on a SASL listener', function () {
  this.timeout(60_000);
  let c: KafkaTestCluster;

  before(async () => {
    c = await startKafkaCluster({ brokers: 1, sasl: { mechanisms: ['PLAIN'], users: { alice: 'alice-secret', bob: 'bob-secret' } } });
    const admin = await KafkaCaller.plainLogin(c.bootstrap[0]!, 'bob', 'bob-secret', 'admin');
    try {
      // every user (ANONYMOUS before authenticating too) a millionth of a thread, bob ten threads
      const r = await admin.call(ApiKeys.AlterClientQuotas, 1, {
        entries: [
          { entity: [{ entityType: 'user', entityName: null }], ops: [{ key: 'request_percentage', value: 0.0001, remove: false }] },
          { entity: [{ entityType: 'user', entityName: 'bob' }], ops: [{ key: 'request_percentage', value: 1000, remove: false }] },
        ],
        validateOnly: false,
      });
      expect(r.entries.map((e: { errorCode: number }) => e.errorCode)).to.deep.equal([0, 0]);
    } finally {
      admin.end();
    }
    await checkFor(async () => (await listener()).clientQuotas === 2, 10_000, 20);
  });
  const listener = async () =>
    (await c.handle.mainSystem.ask<KafkaListenerDescription>({ node: 'main', path: `/${kafkaListenerName(1)}` }, { type: 'DescribeKafkaListener' }, { timeoutMs: 5_000 })) as KafkaListenerDescription;
  after(async () => {
    await c?.stop();
  });

  it("holds the authenticated user to it; ApiVersions before authentication and the SASL exchange are exempt", async () => {
    const { exemptRequestTimeMs } = await listener();
    const alice = await KafkaCaller.connect(c.bootstrap[0]!, 'app');
    try {
      const versions = await alice.call(ApiKeys.ApiVersions, 3, { clientSoftwareName: 'test', clientSoftwareVersion: '1' });
      expect(versions.errorCode).to.equal(0);
      expect(versions.throttleTimeMs).to.equal(0);
      expect((await listener()).exemptRequestTimeMs).to.be.greaterThan(exemptRequestTimeMs);
      const hs = await alice.call(17, 1, { mechanism: 'PLAIN' });
      expect(hs.errorCode).to.equal(0);
      const t = Date.now();
      const auth = await alice.call(36, 2, { authBytes: Buffer.from('\u0000alice\u0000alice-secret') });
      expect(auth.errorCode).to.equal(0);
      expect(Date.now() - t, 'the SASL exchange was not held back').to.be.below(500);
      const md = await alice.call(ApiKeys.Metadata, 12, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
      expect(md.throttleTimeMs).to.be.within(1, 1_000);
    } finally {
      alice.end();
    }
    const bob = await KafkaCaller.plainLogin(c.bootstrap[0]!, 'bob', 'bob-secret', 'app');
    try {
      for (let i = 0; i < 3; i++) expect((await bob.call(ApiKeys.Metadata, 12, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false })).throttleTimeMs).to.equal(0);
    } finally {
      bob.end();
    }
  });
});
