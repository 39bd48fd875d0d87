/**
 * Client quotas over the Kafka protocol: AlterClientQuotas sets and removes them (refusing, per
 * entry, values out of range; validateOnly changes nothing),
 * DescribeClientQuotas lists them by filter, and the broker holds a client over its
 * producer_byte_rate or consumer_byte_rate back: its responses carry a throttle time and its
 * traffic stays within the quota (an upper bound against the time since it started, with one
 * second's allowance and one request of slack), while other clients go on unthrottled; a
 * controller_mutation_rate quota refuses CreateTopics v6 / DeleteTopics v5 topics beyond it and
 * holds older versions back.
 */
import { expect } from 'chai';
import { kafkaListenerName, type KafkaListenerDescription } from '../../../actors/kafka-listener/listener.js';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { encodeRecordBatch } from '../../../src/protocol/record-batch.js';
import { checkFor } from '../../helpers/check-for.js';
import { startKafkaCluster, type KafkaTestCluster } from '../../helpers/kafka-cluster.js';
import { KafkaCaller, consumerFetchBody } from '../../helpers/raw-kafka.js';

const RATE = 60_000;
const VALUE = Buffer.alloc(10_000, 7);

describe('Kafka API: client quotas', function () {
  this.timeout(60_000);
  let c: KafkaTestCluster;
  let admin: KafkaCaller;

  before(async () => {
    c = await startKafkaCluster({ brokers: 1, topics: [{ name: 'q', partitions: 1, replicationFactor: 1 }] });
    admin = await KafkaCaller.connect(c.bootstrap[0]!, 'admin');
  });
  after(async () => {
    admin?.end();
    await c?.stop();
  });

  const entity = (type: string, name: string | null) => [{ entityType: type, entityName: name }];
  const alter = (entries: { entity: { entityType: string; entityName: string | null }[]; ops: { key: string; value: number; remove: boolean }[] }[], validateOnly = false) =>
    admin.call(ApiKeys.AlterClientQuotas, 1, { entries, validateOnly });
  const listenerQuotas = async () =>
    ((await c.handle.mainSystem.ask<KafkaListenerDescription>({ node: 'main', path: `/${kafkaListenerName(1)}` }, { type: 'DescribeKafkaListener' }, { timeoutMs: 5_000 })) as KafkaListenerDescription).clientQuotas;

  async function produce(k: KafkaCaller): Promise<{ errorCode: number; throttleTimeMs: number }> {
    const records = encodeRecordBatch({ records: [{ value: VALUE, timestamp: Date.now() }] });
    const r = await k.call(ApiKeys.Produce, 9, { transactionalId: null, acks: 1, timeoutMs: 5_000, topicData: [{ name: 'q', partitionData: [{ index: 0, records }] }] });
    return { errorCode: r.responses[0].partitionResponses[0].errorCode, throttleTimeMs: r.throttleTimeMs };
  }

  it('AlterClientQuotas sets, refuses per entry and validates only; DescribeClientQuotas lists by filter', async () => {
    const dry = await alter([{ entity: entity('client-id', 'dry'), ops: [{ key: 'producer_byte_rate', value: 1, remove: false }] }], true);
    expect(dry.entries[0].errorCode).to.equal(0);
    const r = await alter([
      { entity: entity('client-id', 'slow'), ops: [{ key: 'producer_byte_rate', value: RATE, remove: false }] },
      { entity: [...entity('user', null), ...entity('client-id', 'reader')], ops: [{ key: 'consumer_byte_rate', value: RATE, remove: false }] },
      { entity: entity('ip', '10.0.0.1'), ops: [{ key: 'connection_creation_rate', value: 5, remove: false }] },
      { entity: entity('user', 'alice'), ops: [{ key: 'request_percentage', value: -50, remove: false }] },
      { entity: entity('user', 'bob'), ops: [{ key: 'producer_byte_rate', value: -1, remove: false }] },
    ]);
    expect(r.entries.map((e: { errorCode: number }) => e.errorCode)).to.deep.equal([0, 0, 0, ErrorCode.INVALID_REQUEST, ErrorCode.INVALID_REQUEST]);
    expect(r.entries[3].errorMessage).to.equal("request_percentage must be a positive percentage of a request handler thread's time, got -50");
    expect(r.entries[0].entity).to.deep.equal(entity('client-id', 'slow'));

    const all = await admin.call(ApiKeys.DescribeClientQuotas, 1, { components: [], strict: false });
    expect(all.errorCode).to.equal(0);
    expect(all.entries.map((e: { entity: unknown; values: unknown }) => [e.entity, e.values])).to.have.deep.members([
      [entity('client-id', 'slow'), [{ key: 'producer_byte_rate', value: RATE }]],
      [[...entity('user', null), ...entity('client-id', 'reader')], [{ key: 'consumer_byte_rate', value: RATE }]],
      [entity('ip', '10.0.0.1'), [{ key: 'connection_creation_rate', value: 5 }]],
    ]);
    const defaultUsers = await admin.call(ApiKeys.DescribeClientQuotas, 0, { components: [{ entityType: 'user', matchType: 1, match: null }], strict: false });
    expect(defaultUsers.entries).to.have.length(1);
    const strictClients = await admin.call(ApiKeys.DescribeClientQuotas, 1, { components: [{ entityType: 'client-id', matchType: 2, match: null }], strict: true });
    expect(strictClients.entries.map((e: { entity: unknown }) => e.entity)).to.deep.equal([entity('client-id', 'slow')]);
    const ips = await admin.call(ApiKeys.DescribeClientQuotas, 1, { components: [{ entityType: 'ip', matchType: 2, match: null }], strict: false });
    expect(ips.entries.map((e: { entity: unknown }) => e.entity)).to.deep.equal([entity('ip', '10.0.0.1')]);
    const bad = await admin.call(ApiKeys.DescribeClientQuotas, 1, { components: [{ entityType: 'group', matchType: 2, match: null }], strict: false });
    expect(bad.errorCode).to.equal(ErrorCode.INVALID_REQUEST);
    await checkFor(async () => (await listenerQuotas()) === 3, 10_000, 20);
  });

  it('a producer over its producer_byte_rate is throttled and held to it; another client id is not', async () => {
    const slow = await KafkaCaller.connect(c.bootstrap[0]!, 'slow');
    const fast = await KafkaCaller.connect(c.bootstrap[0]!, 'fast');
    try {
      const started = Date.now();
      let sent = 0;
      let throttled = 0;
      while (Date.now() - started < 2_500) {
        const r = await produce(slow);
        expect(r.errorCode).to.equal(0);
        sent += VALUE.length;
        if (r.throttleTimeMs > 0) throttled++;
        const elapsed = (Date.now() - started) / 1000;
        expect(sent, `${sent} bytes produced in ${elapsed.toFixed(2)} s`).to.be.at.most(RATE * Math.max(elapsed, 1) * 1.3 + 3 * VALUE.length);
      }
      expect(throttled, 'responses carrying a throttle time').to.be.greaterThan(0);
      for (let i = 0; i < 30; i++) expect((await produce(fast)).throttleTimeMs).to.equal(0);
    } finally {
      slow.end();
      fast.end();
    }
  });

  it('a consumer over its consumer_byte_rate (a default user with its client id) is throttled and held to it', async () => {
    const reader = await KafkaCaller.connect(c.bootstrap[0]!, 'reader');
    try {
      const started = Date.now();
      let fetched = 0;
      let throttled = 0;
      let offset = 0;
      while (Date.now() - started < 2_500) {
        const r = await reader.call(ApiKeys.Fetch, 12, consumerFetchBody('q', 0, offset, { maxBytes: 12_000, topics: [{ topic: 'q', partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: offset, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: 12_000 }] }] }));
        const p = r.responses[0].partitions[0];
        expect(p.errorCode).to.equal(0);
        const bytes = p.records?.length ?? 0;
        if (bytes === 0) offset = 0; // read it all: from the start again
        else offset += 1;
        fetched += bytes;
        if (r.throttleTimeMs > 0) throttled++;
        const elapsed = (Date.now() - started) / 1000;
        expect(fetched, `${fetched} bytes fetched in ${elapsed.toFixed(2)} s`).to.be.at.most(RATE * Math.max(elapsed, 1) * 1.3 + 3 * 12_000);
      }
      expect(throttled).to.be.greaterThan(0);
    } finally {
      reader.end();
    }
  });

  it('removed, a quota holds nobody back', async () => {
    const r = await alter([{ entity: entity('client-id', 'slow'), ops: [{ key: 'producer_byte_rate', value: 0, remove: true }] }]);
    expect(r.entries[0].errorCode).to.equal(0);
    await checkFor(async () => (await listenerQuotas()) === 2, 10_000, 20);
    const slow = await KafkaCaller.connect(c.bootstrap[0]!, 'slow');
    try {
      for (let i = 0; i < 30; i++) expect((await produce(slow)).throttleTimeMs).to.equal(0);
    } finally {
      slow.end();
    }
  });

  it('controller_mutation_rate: CreateTopics v6 refuses topics once the bucket is spent (THROTTLING_QUOTA_EXCEEDED); older versions and other clients are only held back or untouched', async () => {
    // 1 partition a second: a bucket of 11
    const before = await listenerQuotas();
    const set = await alter([{ entity: entity('client-id', 'creator'), ops: [{ key: 'controller_mutation_rate', value: 1, remove: false }] }]);
    expect(set.entries[0].errorCode).to.equal(0);
    await checkFor(async () => ((await listenerQuotas()) > before ? true : null), 10_000, 20);
    // a throttled answer holds its connection back: each request goes on a connection of its own
    // (the same client id, so the same bucket on the controller)
    const [creator, creator2, creator3] = await Promise.all([1, 2, 3].map(() => KafkaCaller.connect(c.bootstrap[0]!, 'creator')));
    const other = await KafkaCaller.connect(c.bootstrap[0]!, 'someone-else');
    const create = (k: KafkaCaller, version: number, names: string[], partitions: number) =>
      k.call(ApiKeys.CreateTopics, version, { topics: names.map((name) => ({ name, numPartitions: partitions, replicationFactor: 1, assignments: [], configs: [] })), timeoutMs: 5_000, validateOnly: false });
    try {
      // 8 + 8 partitions: the first takes 8 of 11, the second overshoots to -5, the third is refused
      const strict = await create(creator!, 6, ['m1', 'm2', 'm3'], 8);
      expect(strict.topics.map((t: { name: string; errorCode: number }) => [t.name, t.errorCode])).to.deep.equal([
        ['m1', 0],
        ['m2', 0],
        ['m3', ErrorCode.THROTTLING_QUOTA_EXCEEDED],
      ]);
      expect(strict.topics[2].errorMessage).to.equal('The throttling quota has been exceeded.');
      expect(strict.throttleTimeMs).to.be.within(4_000, 5_000);
      // v5 knows no such error: the topic is created, and the answer says how long to hold back
      const permissive = await create(creator2!, 5, ['m4'], 2);
      expect(permissive.topics[0].errorCode).to.equal(0);
      expect(permissive.throttleTimeMs).to.be.within(6_000, 7_000);
      // deleting counts too (DeleteTopics v5 is strict)
      const deleted = await creator3!.call(ApiKeys.DeleteTopics, 5, { topicNames: ['m1'], timeoutMs: 5_000 });
      expect(deleted.responses[0].errorCode).to.equal(ErrorCode.THROTTLING_QUOTA_EXCEEDED);
      expect(deleted.throttleTimeMs).to.be.greaterThan(0);
      // another client id has no quota
      const free = await create(other, 6, ['o1'], 30);
      expect(free.topics[0].errorCode).to.equal(0);
      expect(free.throttleTimeMs).to.equal(0);
      const md = await other.call(ApiKeys.Metadata, 9, { topics: ['m1', 'm2', 'm3', 'm4'].map((name) => ({ name })), allowAutoTopicCreation: false });
      expect(md.topics.map((t: { name: string; errorCode: number }) => [t.name, t.errorCode])).to.deep.equal([
        ['m1', 0],
        ['m2', 0],
        ['m3', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
        ['m4', 0],
      ]);
    } finally {
      for (const k of [creator, creator2, creator3, other]) k?.end();
    }
  });
});
